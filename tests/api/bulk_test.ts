/**
 * Bulk import and export over real HTTP (`/api/admin/import`, `/api/admin/export`), on both
 * store backends: a file with bad items imports every good one and reports each bad one
 * with its line; the three modes, with items found unchanged, skipped or held by another
 * collection (named); one import per collection at a time (409); export in a
 * stable order; and the round trip (export, import into an empty service, same items with
 * the same ETags).
 */
import { strict as assert } from "node:assert";
import { type StoreBackend, storeBackends, type TestService } from "../support/service.ts";
import { startTestService } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";
import { expectProblem } from "../support/problems.ts";
import type { ImportJob } from "../../src/bulk/import_jobs.ts";

const COLLECTION = "https://data.example.org/collection/bulk";
const OTHER = "https://data.example.org/collection/bulk-other";
const WORKSPACE = "https://data.example.org/workspace/bulk";
const EX = "https://ex.example.org/";
const SHAPES = `@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<${EX}BookShape> a sh:NodeShape ;
  sh:targetClass <${EX}Book> ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:datatype xsd:string ] .
`;

function yaml(shapesPath: string): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}workspaces:
  - uri: ${WORKSPACE}
    name: Bulk
    collections:
      - uri: ${COLLECTION}
        name: Bulk
        index: bulk
        shapes: ${JSON.stringify(shapesPath)}
      - uri: ${OTHER}
        name: Other
        index: bulkother
`;
}

async function withService(
  backend: StoreBackend,
  fn: (service: TestService) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-bulk-" });
  await Deno.writeTextFile(`${dir}/shapes.ttl`, SHAPES);
  const service = await startTestService({ yaml: yaml(`${dir}/shapes.ttl`), env: backend.env });
  try {
    await fn(service);
  } finally {
    await service.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function importPath(query: string, collection = COLLECTION): string {
  return `/api/admin/import?collection=${encodeURIComponent(collection)}&${query}`;
}

async function importText(
  service: TestService,
  body: string,
  type: string,
  query = "wait=true",
  collection = COLLECTION,
): Promise<ImportJob> {
  const response = await service.fetch(importPath(query, collection), {
    method: "POST",
    headers: { "Content-Type": type },
    body,
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get("location") ?? "", /^\/api\/admin\/import\/jobs\//);
  return await response.json();
}

async function etag(service: TestService, uri: string, collection = COLLECTION) {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`,
    { headers: { Accept: "application/n-triples" } },
  );
  await response.body?.cancel();
  return response.status === 200 ? response.headers.get("etag") : response.status;
}

async function exportText(service: TestService, query: string, accept: string) {
  const response = await service.fetch(`/api/admin/export?${query}`, {
    headers: { Accept: accept },
  });
  assert.equal(response.status, 200);
  return { type: response.headers.get("content-type"), text: await response.text() };
}

const book = (n: number) => `${EX}book/${n}`;

/** A TriG file of good items around five bad parts (lines noted beside each). */
const MIXED_TRIG = `@prefix ex: <${EX}> .
@prefix dct: <http://purl.org/dc/terms/> .
# a comment line
<${book(1)}> { <${book(1)}> a ex:Book ; dct:title "One" ; ex:part [ ex:n 1 ] . }
<${book(2)}> {
  <${book(2)}> a ex:Book ; dct:title "Two" .
}
<${book(3)}> {
  <${book(3)}> a ex:Book ; dct:title "Three" ;;; ] .
}
<${book(4)}> {
  <${book(4)}> a ex:Book ; dct:title 4 .
}
<${book(5)}> { <relative> a ex:Book ; dct:title "Five" . }
ex:x dct:title "in the default graph" .
GRAPH <${book(6)}> { <${book(6)}> a ex:Book ; dct:title "Six {with braces} and \\"quotes\\"" . }
<${book(2)}> { <${book(2)}> dct:title "Again" . }
`;

for (const backend of storeBackends({ allStores: true })) {
  const test = (name: string, fn: (service: TestService) => Promise<void>) =>
    Deno.test({
      name: `[bulk/${backend.name}] ${name}`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: () => withService(backend, fn),
    });

  test("a file with bad items imports every good one and reports each bad one with its line", async (service) => {
    const job = await importText(service, MIXED_TRIG, "application/trig");
    assert.equal(job.state, "succeeded");
    assert.equal(job.bytesRead, new TextEncoder().encode(MIXED_TRIG).byteLength);
    assert.equal(job.written, 3);
    assert.equal(job.refused, 5);
    assert.equal(job.outcome, "incomplete");
    assert.equal(job.summary, "incomplete: 8 items, 3 written, 0 unchanged, 0 skipped, 5 refused");
    const byType = Object.fromEntries(job.errors.map((e) => [e.type, e]));
    assert.deepEqual(byType["rdf-syntax"].line, 9);
    assert.equal(byType["rdf-syntax"].item, null);
    assert.equal(byType["shacl-violation"].line, 11);
    assert.equal(byType["relative-iri"].line, 14);
    assert.equal(byType["default-graph-refused"].line, 15);
    assert.equal(byType["graph-not-contiguous"].line, 17);
    assert.equal(byType["graph-not-contiguous"].item, book(2));
    for (const n of [1, 2, 6]) assert.match(String(await etag(service, book(n))), /^"/);
    for (const n of [3, 4, 5]) assert.equal(await etag(service, book(n)), 404);
    const jobs = await (await service.fetch("/api/admin/import/jobs")).json();
    assert.equal(jobs[0].id, job.id);
    const again = await (await service.fetch(`/api/admin/import/jobs/${job.id}`)).json();
    assert.deepEqual(again, job);
  });

  test("modes: create leaves existing items, replace needs them, upsert does both", async (service) => {
    const one = (n: number, title: string) =>
      `<${book(n)}> <http://purl.org/dc/terms/title> "${title}" <${book(n)}> .\n`;
    const first = await importText(service, one(1, "a") + one(2, "a"), "application/n-quads");
    assert.deepEqual([first.written, first.refused], [2, 0], JSON.stringify(first));
    assert.equal(first.outcome, "complete");
    const before = await etag(service, book(1));

    // The same item again: unchanged, and the import is complete though it wrote nothing.
    const same = await importText(service, one(2, "a"), "application/n-quads");
    assert.deepEqual(
      [same.state, same.outcome, same.written, same.unchanged, same.errors],
      ["succeeded", "complete", 0, 1, []],
    );

    // Other content: skipped, listed with the collection that holds it; incomplete.
    const create = await importText(service, one(1, "b") + one(3, "b"), "application/n-quads");
    assert.deepEqual([create.written, create.skipped, create.existing], [1, 1, 1]);
    assert.equal(create.outcome, "incomplete");
    assert.deepEqual(create.errors, [{
      item: book(1),
      line: 1,
      type: "item-exists",
      message: "The collection holds this item with other content; mode=create leaves it as " +
        "it is (mode=upsert replaces it).",
      collection: COLLECTION,
    }]);
    assert.equal(await etag(service, book(1)), before);
    // Nothing but skipped items: nothing imported, failed.
    const skippedOnly = await importText(service, one(1, "c"), "application/n-quads");
    assert.deepEqual([skippedOnly.state, skippedOnly.skipped], ["failed", 1]);

    // An IRI another collection holds is an item of its own here: created beside it, in
    // every mode that creates; neither copy changes the other.
    const elsewhere = await importText(
      service,
      one(7, "other"),
      "application/n-quads",
      "wait=true",
      OTHER,
    );
    assert.equal(elsewhere.written, 1);
    const otherTag = await etag(service, book(7), OTHER);
    const alongside = await importText(
      service,
      one(7, "mine"),
      "application/n-quads",
      "mode=upsert&wait=true",
    );
    assert.deepEqual([alongside.outcome, alongside.written, alongside.errors], [
      "complete",
      1,
      [],
    ]);
    const mineTag = await etag(service, book(7));
    assert.match(String(mineTag), /^"/);
    assert.notEqual(mineTag, otherTag);
    assert.equal(await etag(service, book(7), OTHER), otherTag);
    // mode=replace names items this collection holds: another collection's is not one.
    const notHere = await importText(
      service,
      one(9, "mine"),
      "application/n-quads",
      "mode=replace&wait=true",
      COLLECTION,
    );
    assert.equal(notHere.refused, 1);
    await importText(service, one(9, "other"), "application/n-quads", "wait=true", OTHER);
    const stillNotHere = await importText(
      service,
      one(9, "mine"),
      "application/n-quads",
      "mode=replace&wait=true",
    );
    assert.deepEqual([stillNotHere.refused, stillNotHere.errors[0]?.type], [1, "item-not-found"]);

    const replace = await importText(
      service,
      one(1, "c") + one(4, "c"),
      "application/n-quads",
      "mode=replace&wait=true",
    );
    assert.deepEqual([replace.written, replace.refused], [1, 1]);
    assert.equal(replace.errors[0].type, "item-not-found");
    assert.equal(replace.errors[0].line, 2);
    assert.notEqual(await etag(service, book(1)), before);
    assert.equal(await etag(service, book(4)), 404);

    const upsert = await importText(
      service,
      one(1, "d") + one(5, "d"),
      "application/n-quads",
      "mode=upsert&wait=true",
    );
    assert.deepEqual([upsert.written, upsert.refused], [2, 0]);
    assert.match(String(await etag(service, book(5))), /^"/);
  });

  test("N-Quads: lines of one graph together, a bad line refuses its item only", async (service) => {
    const nq = [
      `<${book(1)}> <http://purl.org/dc/terms/title> "One" <${book(1)}> .`,
      `<${book(1)}> <${EX}n> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <${book(1)}> .`,
      `# comment`,
      `<${book(2)}> <http://purl.org/dc/terms/title> "Two <${book(1)}> ." <${book(2)}> .`,
      `<${book(3)}> <http://purl.org/dc/terms/title> "Three" <${book(3)}> .`,
      `<${book(3)}> <http://purl.org/dc/terms/title> "broken <${book(3)}> .`,
      `<${book(4)}> <http://purl.org/dc/terms/title> "default graph" .`,
      `_:s <http://purl.org/dc/terms/title> "Five" <${book(5)}> .`,
    ].join("\n");
    const job = await importText(service, nq, "application/n-quads", "wait=true", OTHER);
    assert.deepEqual([job.written, job.refused], [3, 2], JSON.stringify(job.errors));
    assert.deepEqual(job.errors.map((e) => [e.type, e.line]), [
      ["rdf-syntax", 6],
      ["default-graph-refused", 7],
    ]);
    assert.equal(await etag(service, book(3), OTHER), 404);
  });

  test("one import per collection at a time; the job shows progress while it reads", async (service) => {
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
    const encoder = new TextEncoder();
    feed.enqueue(encoder.encode(`<${book(1)}> { <${book(1)}> <${EX}p> "x" . }\n`));
    const answer = service.fetch(importPath("mode=upsert"), {
      method: "POST",
      headers: { "Content-Type": "application/trig" },
      body,
    });
    // While the body uploads, the job is listed as running, with its progress.
    let running: ImportJob | undefined;
    for (let i = 0; i < 200 && running?.written !== 1; i++) {
      const jobs = await (await service.fetch("/api/admin/import/jobs")).json();
      running = jobs.find((job: { state: string }) => job.state === "running");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(running?.collection, COLLECTION);
    assert.equal(running?.written, 1);
    assert.ok(running!.bytesRead > 0);

    const second = await service.fetch(importPath("wait=true"), {
      method: "POST",
      headers: { "Content-Type": "application/trig" },
      body: `<${book(2)}> { <${book(2)}> <${EX}p> "y" . }`,
    });
    const problem = await expectProblem(second, 409, "import-running");
    assert.equal(problem.runningJob, running!.id);
    // Another collection imports meanwhile.
    const other = await importText(
      service,
      `<${book(9)}> { <${book(9)}> <${EX}p> "z" . }`,
      "application/trig",
      "wait=true",
      OTHER,
    );
    assert.equal(other.written, 1);

    feed.enqueue(encoder.encode(`<${book(3)}> { <${book(3)}> <${EX}p> "x" . }\n`));
    feed.close();
    const started = await answer;
    assert.equal(started.status, 202);
    assert.equal(started.headers.get("location"), `/api/admin/import/jobs/${running!.id}`);
    assert.equal((await started.json()).id, running!.id);
    let done: ImportJob | undefined;
    for (let i = 0; i < 200 && done?.state !== "succeeded"; i++) {
      done = await (await service.fetch(`/api/admin/import/jobs/${running!.id}`)).json();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(done?.state, "succeeded");
    assert.equal(done?.written, 2);
  });

  test("bad requests: media type, mode, collection", async (service) => {
    const post = (query: string, type: string) =>
      service.fetch(`/api/admin/import?${query}`, {
        method: "POST",
        headers: { "Content-Type": type },
        body: "",
      });
    const collection = `collection=${encodeURIComponent(COLLECTION)}`;
    await expectProblem(await post(collection, "text/turtle"), 415, "unsupported-media-type");
    await expectProblem(
      await post(`${collection}&mode=merge`, "application/trig"),
      400,
      "invalid-parameter",
    );
    await expectProblem(
      await post("collection=https://nowhere.example/c", "application/trig"),
      404,
      "collection-not-found",
    );
    await expectProblem(await service.fetch("/api/admin/export"), 400, "invalid-parameter");
    await expectProblem(
      await service.fetch(`/api/admin/export?${collection}`, {
        headers: { Accept: "text/turtle" },
      }),
      406,
      "not-acceptable",
    );
    await expectProblem(await service.fetch("/api/admin/import/jobs/nope"), 404, "job-not-found");
  });

  test("round trip: export, import into an empty service, the same items and ETags", async (service) => {
    const items = Array.from(
      { length: 30 },
      (_, n) =>
        `<${book(n)}> { <${book(n)}> a <${EX}Book> ; <http://purl.org/dc/terms/title> "Book ${n}" ;
        <${EX}label> "Buch ${n}"@de ;
        <${EX}part> [ <${EX}n> ${n} ; <${EX}note> "line\\nbreak" ] . }`,
    ).join("\n");
    const imported = await importText(service, items, "application/trig");
    assert.equal(imported.written, 30, JSON.stringify(imported.errors.slice(0, 3)));
    await importText(
      service,
      `<${book(99)}> { <${book(99)}> <${EX}p> "o" . }`,
      "application/trig",
      "wait=true",
      OTHER,
    );

    const collection = `collection=${encodeURIComponent(COLLECTION)}`;
    const nquads = await exportText(service, collection, "application/n-quads");
    assert.match(nquads.type ?? "", /^application\/n-quads/);
    const trig = await exportText(service, collection, "application/trig");
    assert.match(trig.type ?? "", /^application\/trig/);
    // Stable: items by URI.
    const graphs = [...trig.text.matchAll(/^<([^>]+)> \{$/gm)].map((m) => m[1]);
    assert.deepEqual(graphs, [...graphs].sort());
    assert.equal(graphs.length, 30);
    const workspace = await exportText(
      service,
      `workspace=${encodeURIComponent(WORKSPACE)}`,
      "application/n-quads",
    );
    assert.equal(workspace.text, nquads.text + `<${book(99)}> <${EX}p> "o" <${book(99)}> .\n`);

    const etags = await Promise.all(graphs.map((uri) => etag(service, uri)));
    await withService(backend, async (empty) => {
      for (const [format, text] of [["n-quads", nquads.text], ["trig", trig.text]]) {
        const job = await importText(
          empty,
          text,
          `application/${format}`,
          "mode=upsert&wait=true",
        );
        assert.deepEqual([job.written, job.refused], [30, 0], JSON.stringify(job.errors));
        assert.deepEqual(await Promise.all(graphs.map((uri) => etag(empty, uri))), etags);
      }
    });
  });
}

Deno.test({
  name: "[bulk/embedded] a service that stops while an import waits for its body fails the job",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-bulk-stop-" });
    try {
      const first = await startTestService({ dataDir });
      let feed!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
      const uri = "https://data.example.org/id/bulk-stop/1";
      feed.enqueue(new TextEncoder().encode(`<${uri}> { <${uri}> <${EX}p> "x" . }\n`));
      const collection = encodeURIComponent("https://data.example.org/collection/documents");
      const answer = first.fetch(`/api/admin/import?collection=${collection}`, {
        method: "POST",
        headers: { "Content-Type": "application/trig" },
        body,
      }).catch(() => undefined);
      let id: string | undefined;
      while (!id) {
        const jobs = await (await first.fetch("/api/admin/import/jobs")).json();
        id = jobs.find((job: { state: string }) => job.state === "running")?.id;
      }
      await first.close(); // returns although the body never ends
      await answer;
      feed.error(new Error("gone"));
      const second = await startTestService({ dataDir });
      try {
        const job = await (await second.fetch(`/api/admin/import/jobs/${id}`)).json();
        assert.equal(job.state, "failed");
        // The server closing cuts the upload, or the runner stops the read: failed either way.
        assert.match(job.errors.at(-1).message, /stopped|could not be read/);
      } finally {
        await second.close();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
