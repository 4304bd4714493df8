/**
 * Item history over real HTTP (docs/api.md, Item history; issue 41): every write a version
 * with its principal and time, each version read back with its own ETag, the Memento
 * TimeGate and TimeMap (RFC 7089), refused writes leaving no version, delete → 410 and
 * restore, with the search index following.
 *
 * The suites run on every store ({@link HISTORY_BACKENDS}): the embedded store and the SPARQL
 * store on Fuseki (its history on Virtuoso too: tests/integration/sparql_item_history_test.ts).
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  type StoreBackend,
  storeBackends,
  storeTest,
  type TestService,
  uniqueItemUri,
  withToken,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { Parser } from "n3";
import { applyRdfPatchWithJena, jenaJars } from "../support/jena.ts";

const TITLE = "http://purl.org/dc/terms/title";
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const TOKENS = { e1: "editor-one-token-0123456789", e2: "editor-two-token-0123456789" };
const READER = "reader-token-012345678901";
const ADMIN = "admin-token-0123456789012";
const YAML = SHIPPED.replace(
  "    tokens: []",
  `    tokens:
      - { name: e1, token: "${TOKENS.e1}", role: editor }
      - { name: e2, token: "${TOKENS.e2}", role: editor }
      - { name: r, token: "${READER}", role: reader }
      - { name: a, token: "${ADMIN}", role: admin }`,
);

/** Jena's jars with its RDF Patch module, for an independent applier of the diff. */
const jena = jenaJars("jena-rdfpatch-");

/** Every store keeps history: the embedded store and the SPARQL store (on Fuseki). */
const HISTORY_BACKENDS = storeBackends();

/** A client of the service as one token's holder. */
const as = withToken;

type Call = ReturnType<typeof as>;

function body(uri: string, title: string): string {
  return `<${uri}> <${TITLE}> "${title}" .\n`;
}

async function create(call: Call, uri: string, title: string): Promise<string> {
  const response = await call(`/api/item?${itemQuery(uri)}`, {
    method: "PUT",
    headers: { "Content-Type": "application/n-triples" },
    body: body(uri, title),
  });
  assert.equal(response.status, 201, await response.text());
  return response.headers.get("etag")!;
}

async function update(call: Call, uri: string, title: string, ifMatch?: string) {
  return await call(`/api/item?${itemQuery(uri)}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/n-triples",
      ...(ifMatch ? { "If-Match": ifMatch } : {}),
    },
    body: body(uri, title),
  });
}

interface VersionEntry {
  version: number;
  hash: string | null;
  tripleCount: number;
  time: string;
  principal: string;
  operation: string;
}

async function history(call: Call, uri: string, query = "") {
  const response = await call(`/api/item/history?${itemQuery(uri)}${query}`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as { versions: VersionEntry[]; next: string | null };
}

/** One link of an application/link-format document (RFC 6690): its target and parameters. */
interface Link {
  target: string;
  params: Record<string, string>;
}

/**
 * Parses application/link-format by RFC 6690 §2's grammar: `<URI>` then `;name=value`
 * parameters (quoted strings may hold commas and semicolons), links separated by commas;
 * line breaks after a comma, as RFC 7089's TimeMaps have them, are allowed. Throws on
 * anything else, so a malformed TimeMap fails the test.
 */
function parseLinkFormat(text: string): Link[] {
  const links: Link[] = [];
  let i = 0;
  const fail = (why: string) => {
    throw new Error(`link-format: ${why} at ${i}: ${JSON.stringify(text.slice(i, i + 40))}`);
  };
  while (i < text.length) {
    if (text[i] !== "<") fail("expected <");
    const end = text.indexOf(">", i);
    if (end < 0) fail("unclosed <");
    const link: Link = { target: text.slice(i + 1, end), params: {} };
    i = end + 1;
    while (text[i] === ";") {
      const name = /^[a-z0-9*-]+/i.exec(text.slice(i + 1))?.[0];
      if (!name) fail("expected a parameter name");
      i += 1 + name!.length;
      if (text[i] !== "=") fail("expected =");
      i++;
      let value: string;
      if (text[i] === '"') {
        const close = text.indexOf('"', i + 1);
        if (close < 0) fail("unclosed quote");
        value = text.slice(i + 1, close);
        i = close + 1;
      } else {
        value = /^[^;,\s]+/.exec(text.slice(i))?.[0] ?? "";
        if (!value) fail("expected a value");
        i += value.length;
      }
      link.params[name!] = value;
    }
    links.push(link);
    if (text[i] === ",") {
      i++;
      while (text[i] === "\n" || text[i] === " ") i++;
      continue;
    }
    if (text.slice(i).trim() !== "") fail("expected , or the end");
    break;
  }
  return links;
}

/** An HTTP `Link` header (RFC 8288 allows spaces around `;` and `,`) read as link-format. */
function parseLinkHeader(header: string): Link[] {
  return parseLinkFormat(header.replace(/\s*;\s*/g, ";").replace(/,\s*</g, ",<"));
}

/** An HTTP date (IMF-fixdate) of the instant, as Memento headers carry it. */
function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

function historyTest(
  backend: StoreBackend,
  name: string,
  fn: (service: TestService) => Promise<void>,
): void {
  storeTest("item-history", backend, name, fn, { yaml: YAML });
}

for (const backend of HISTORY_BACKENDS) {
  historyTest(
    backend,
    "20 updates list 21 versions in order, with principals and times; each reads back with its own ETag",
    async (service) => {
      const e1 = as(service, TOKENS.e1);
      const e2 = as(service, TOKENS.e2);
      const uri = uniqueItemUri("history");
      const etags = [await create(e1, uri, "Title 1")];
      for (let n = 2; n <= 21; n++) {
        const response = await update(n % 2 === 0 ? e2 : e1, uri, `Title ${n}`);
        assert.equal(response.status, 204);
        etags.push(response.headers.get("etag")!);
      }

      const { versions, next } = await history(e1, uri, "&limit=1000");
      assert.equal(next, null);
      assert.deepEqual(
        versions.map((v) => v.version),
        Array.from({ length: 21 }, (_, i) => 21 - i),
      );
      for (const version of versions) {
        const n = version.version;
        assert.equal(`"${version.hash}"`, etags[n - 1], `version ${n}'s hash is its write's ETag`);
        assert.equal(version.operation, n === 1 ? "create" : "update");
        assert.equal(version.principal, n % 2 === 0 ? "token:e2" : "token:e1");
        assert.equal(version.tripleCount, 1);
        assert.ok(!Number.isNaN(Date.parse(version.time)), version.time);
      }
      const times = versions.map((v) => v.time).reverse();
      assert.deepEqual(times, [...times].sort(), "times never go back");

      // Each version, by the item route and by a download, with its own ETag and graph.
      for (const version of versions) {
        const n = version.version;
        const read = await e2(`/api/item?${itemQuery(uri)}&version=${n}`, {
          headers: { Accept: "text/turtle" },
        });
        assert.equal(read.status, 200);
        assert.equal(read.headers.get("etag"), etags[n - 1]);
        assert.equal(read.headers.get("memento-datetime"), httpDate(version.time));
        assert.match(read.headers.get("link") ?? "", /rel="memento"/);
        const text = await read.text();
        assert.match(text, new RegExp(`"Title ${n}"`));
        assert.doesNotMatch(text, new RegExp(`"Title ${n === 21 ? 20 : 21}"`));
        const download = await e2(`/api/item.nt?${itemQuery(uri)}&version=${n}`);
        assert.equal(download.headers.get("etag"), etags[n - 1]);
        assert.equal(await download.text(), body(uri, `Title ${n}`));
        // Conditional on its own ETag.
        const notModified = await e2(`/api/item?${itemQuery(uri)}&version=${n}`, {
          headers: { "If-None-Match": etags[n - 1] },
        });
        assert.equal(notModified.status, 304);
        await notModified.body?.cancel();
      }
      // The current item is the newest version.
      const current = await e1(`/api/item?${itemQuery(uri)}`);
      assert.equal(current.headers.get("etag"), etags[20]);
      assert.match(current.headers.get("vary") ?? "", /accept-datetime/i);
      await current.body?.cancel();

      // Paged by version number.
      const first = await history(e1, uri, "&limit=5");
      assert.deepEqual(first.versions.map((v) => v.version), [21, 20, 19, 18, 17]);
      assert.ok(first.next);
      const second = await e1(first.next!);
      assert.deepEqual(
        (await second.json()).versions.map((v: VersionEntry) => v.version),
        [16, 15, 14, 13, 12],
      );
      const last = await history(e1, uri, "&limit=5&before=2");
      assert.deepEqual(last.versions.map((v) => v.version), [1]);
      assert.equal(last.next, null);

      // Bad input names its parameter; nothing is clamped.
      const tooMany = await e1(`/api/item/history?${itemQuery(uri)}&limit=1001`);
      assert.equal(await problemPath(tooMany), "limit");
      const missing = await e1(`/api/item?${itemQuery(uri)}&version=22`);
      await expectProblem(missing, 404, "version-not-found");
      const zero = await e1(`/api/item?${itemQuery(uri)}&version=0`);
      assert.equal(await problemPath(zero), "version");
      const word = await e1(`/api/item?${itemQuery(uri)}&version=first`);
      assert.equal(await problemPath(word), "version");
      const never = await e1(`/api/item/history?${itemQuery(uniqueItemUri("never"))}`);
      await expectProblem(never, 404, "item-not-found");
    },
  );

  historyTest(
    backend,
    "the TimeMap parses as application/link-format and names every memento",
    async (service) => {
      const e1 = as(service, TOKENS.e1);
      const uri = uniqueItemUri("timemap");
      await create(e1, uri, "One");
      for (const title of ["Two", "Three"]) {
        assert.equal((await update(e1, uri, title)).status, 204);
      }
      const { versions } = await history(e1, uri);
      const response = await e1(`/api/item/history?${itemQuery(uri)}`, {
        headers: { Accept: "application/link-format" },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/link-format/);
      const links = parseLinkFormat(await response.text());
      const original = `/api/item?${itemQuery(uri)}`;
      const rels = (link: Link) => link.params.rel.split(" ");
      assert.deepEqual(
        links.filter((l) => rels(l).includes("original")).map((l) => l.target),
        [original],
      );
      assert.deepEqual(
        links.filter((l) => rels(l).includes("timegate")).map((l) => l.target),
        [original],
      );
      const self = links.find((l) => l.params.rel === "self")!;
      assert.equal(self.params.type, "application/link-format");
      assert.equal(self.params.from, httpDate(versions[2].time));
      assert.equal(self.params.until, httpDate(versions[0].time));
      const mementos = links.filter((l) => rels(l).includes("memento"));
      assert.deepEqual(
        mementos.map((l) => [l.target, l.params.datetime]),
        versions.map((v) => [`${original}&version=${v.version}`, httpDate(v.time)]),
      );
      assert.deepEqual(rels(mementos[0]), ["last", "memento"]);
      assert.deepEqual(rels(mementos[2]), ["first", "memento"]);
      for (const memento of mementos) {
        assert.ok(!Number.isNaN(Date.parse(memento.params.datetime)));
        // Each memento's target is readable as that version.
        const read = await e1(memento.target);
        assert.equal(read.status, 200);
        assert.equal(read.headers.get("memento-datetime"), memento.params.datetime);
        await read.body?.cancel();
      }
      const unacceptable = await e1(`/api/item/history?${itemQuery(uri)}`, {
        headers: { Accept: "text/html" },
      });
      await expectProblem(unacceptable, 406, "not-acceptable");
    },
  );

  historyTest(
    backend,
    "Accept-Datetime between two writes answers the earlier version with RFC 7089's headers",
    async (service) => {
      const e1 = as(service, TOKENS.e1);
      const uri = uniqueItemUri("timegate");
      const firstEtag = await create(e1, uri, "Earlier");
      const [first] = (await history(e1, uri)).versions;
      // The next write in a later second: HTTP dates have whole seconds.
      const nextSecond = (Math.floor(Date.parse(first.time) / 1000) + 1) * 1000;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, nextSecond - Date.now() + 50))
      );
      const second = await update(e1, uri, "Later");
      assert.equal(second.status, 204);
      const secondEtag = second.headers.get("etag")!;
      const [later] = (await history(e1, uri)).versions;
      assert.ok(Date.parse(later.time) >= nextSecond);

      // Between the two writes: the earlier one.
      const between = await e1(`/api/item?${itemQuery(uri)}`, {
        headers: { "Accept-Datetime": httpDate(first.time), Accept: "application/n-triples" },
      });
      assert.equal(between.status, 200);
      assert.equal(between.headers.get("etag"), firstEtag);
      assert.equal(between.headers.get("memento-datetime"), httpDate(first.time));
      assert.match(between.headers.get("vary") ?? "", /accept-datetime/i);
      const original = `/api/item?${itemQuery(uri)}`;
      assert.equal(between.headers.get("content-location"), `${original}&version=1`);
      const link = parseLinkHeader(between.headers.get("link")!);
      const rel = (name: string) => link.filter((l) => l.params.rel.split(" ").includes(name));
      assert.deepEqual(rel("original").map((l) => l.target), [original]);
      assert.deepEqual(rel("timemap").map((l) => l.target), [
        `/api/item/history?${itemQuery(uri)}`,
      ]);
      assert.deepEqual(rel("memento").map((l) => [l.target, l.params.datetime]), [
        [`${original}&version=1`, httpDate(first.time)],
      ]);
      assert.equal(await between.text(), body(uri, "Earlier"));

      // After the second write: the later one; before the first: none yet.
      const after = await e1(`/api/item?${itemQuery(uri)}`, {
        headers: { "Accept-Datetime": httpDate(new Date(Date.now() + 60_000).toISOString()) },
      });
      assert.equal(after.headers.get("etag"), secondEtag);
      await after.body?.cancel();
      const before = await e1(`/api/item?${itemQuery(uri)}`, {
        headers: { "Accept-Datetime": "Tue, 20 Jun 2000 18:02:59 GMT" },
      });
      await expectProblem(before, 404, "item-not-found");
      const malformed = await e1(`/api/item?${itemQuery(uri)}`, {
        headers: { "Accept-Datetime": "yesterday" },
      });
      assert.equal(await problemPath(malformed), "Accept-Datetime");
      // Without the header: the current item, pointing at its TimeGate and TimeMap.
      const current = await e1(`/api/item?${itemQuery(uri)}`);
      assert.equal(current.headers.get("etag"), secondEtag);
      assert.equal(current.headers.get("memento-datetime"), null);
      assert.match(current.headers.get("link") ?? "", /rel="timemap"/);
      await current.body?.cancel();
    },
  );

  historyTest(backend, "a refused write leaves no version", async (service) => {
    const e1 = as(service, TOKENS.e1);
    const uri = uniqueItemUri("refused");
    const written = async () => {
      const metrics = await (await as(service, ADMIN)("/metrics")).text();
      return Number(metrics.match(/^rcs_item_versions_written_total (\d+)$/m)?.[1]);
    };
    const before = await written();
    const etag = await create(e1, uri, "Only");
    await expectProblem(
      await update(e1, uri, "Stale", `"${"0".repeat(64)}"`),
      412,
      "precondition-failed",
    );
    const badBody = await e1(`/api/item?${itemQuery(uri)}`, {
      method: "POST",
      headers: { "Content-Type": "application/n-triples" },
      body: `<${uri}> <${TITLE}> "unterminated .`,
    });
    await expectProblem(badBody, 400, "rdf-syntax");
    const again = await e1(`/api/item?${itemQuery(uri)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/n-triples" },
      body: body(uri, "Again"),
    });
    await expectProblem(again, 409, "item-exists");
    const staleDelete = await e1(`/api/item?${itemQuery(uri)}`, {
      method: "DELETE",
      headers: { "If-Match": `"${"1".repeat(64)}"` },
    });
    await expectProblem(staleDelete, 412, "precondition-failed");
    const { versions } = await history(e1, uri);
    assert.deepEqual(versions.map((v) => [v.version, `"${v.hash}"`]), [[1, etag]]);
    // The metric counts the one version written, not the refused writes.
    assert.equal(await written() - before, 1);
  });

  historyTest(
    backend,
    "delete answers 410 with the history link; restore brings the item back with the old ETag and search follows",
    async (service) => {
      const e1 = as(service, TOKENS.e1);
      const e2 = as(service, TOKENS.e2);
      const reader = as(service, READER);
      const uri = uniqueItemUri("restore");
      const word = `zanzibar${crypto.randomUUID().slice(0, 8)}`;
      const firstEtag = await create(e1, uri, `The ${word} report`);
      const second = await update(e1, uri, "A plain title");
      const secondEtag = second.headers.get("etag")!;
      const deleted = await e1(`/api/item?${itemQuery(uri)}`, { method: "DELETE" });
      assert.equal(deleted.status, 204);

      const gone = await e1(`/api/item?${itemQuery(uri)}`);
      const historyLink = `/api/item/history?${itemQuery(uri)}`;
      assert.equal(gone.headers.get("link"), `<${historyLink}>; rel="history"`);
      const problem = await expectProblem(gone, 410, "item-deleted");
      assert.equal(problem.history, historyLink);
      await expectProblem(await e1(`/api/item.ttl?${itemQuery(uri)}`), 410, "item-deleted");
      const { versions } = await history(reader, uri);
      assert.deepEqual(
        versions.map((v) => [v.version, v.operation, v.hash === null, v.principal]),
        [[3, "delete", true, "token:e1"], [2, "update", false, "token:e1"], [
          1,
          "create",
          false,
          "token:e1",
        ]],
      );
      await expectProblem(await e1(`/api/item?${itemQuery(uri)}&version=3`), 410, "item-deleted");
      await eventually(async () => (await searchTotal(e1, word)) === 0, "the delete indexed");

      // Restore: editors only; a delete version has nothing to restore; a deleted item has no
      // current ETag to match.
      const restore = (call: Call, version: number, ifMatch?: string, ifNoneMatch?: string) =>
        call(`/api/item/restore?${itemQuery(uri)}&version=${version}`, {
          method: "POST",
          headers: {
            ...(ifMatch ? { "If-Match": ifMatch } : {}),
            ...(ifNoneMatch ? { "If-None-Match": ifNoneMatch } : {}),
          },
        });
      await expectProblem(await restore(reader, 1), 403, "forbidden");
      await expectProblem(await restore(e2, 3), 400, "invalid-parameter");
      await expectProblem(await restore(e2, 1, firstEtag), 412, "precondition-failed");
      await expectProblem(await restore(e2, 9), 404, "version-not-found");
      const badCondition = await restore(e2, 1, undefined, firstEtag);
      const bad = await expectProblem(badCondition, 400, "invalid-parameter");
      assert.equal((bad.errors as { path: string }[])[0].path, "If-None-Match");
      // An undelete only: If-None-Match: * holds while the item is deleted.
      const restored = await restore(e2, 1, undefined, "*");
      assert.equal(restored.status, 204);
      assert.equal(restored.headers.get("etag"), firstEtag);
      const back = await e1(`/api/item?${itemQuery(uri)}`, { headers: { Accept: "text/turtle" } });
      assert.equal(back.status, 200);
      assert.equal(back.headers.get("etag"), firstEtag);
      assert.match(await back.text(), new RegExp(word));
      await eventually(async () => (await searchTotal(e1, word)) === 1, "the restore indexed");

      // Over the current item: conditional on its ETag; an undelete-only restore refused.
      await expectProblem(await restore(e2, 2, undefined, "*"), 412, "precondition-failed");
      await expectProblem(await restore(e2, 2, secondEtag), 412, "precondition-failed");
      const conditional = await restore(e2, 2, firstEtag);
      assert.equal(conditional.status, 204);
      assert.equal(conditional.headers.get("etag"), secondEtag);
      const after = await history(e1, uri);
      assert.deepEqual(
        after.versions.map((v) => [v.version, v.operation, v.principal, `"${v.hash}"`]).slice(0, 2),
        [[5, "restore", "token:e2", secondEtag], [4, "restore", "token:e2", firstEtag]],
      );
      await eventually(async () => (await searchTotal(e1, word)) === 0, "the second restore");
    },
  );
}

for (const backend of HISTORY_BACKENDS) {
  historyTest(backend, "/sparql shows no version triples", async (service) => {
    const e1 = as(service, TOKENS.e1);
    const uri = uniqueItemUri("sparql-hidden");
    const etag = await create(e1, uri, "Visible title");
    assert.equal((await update(e1, uri, "Second title", etag)).status, 204);
    const gone = uniqueItemUri("sparql-deleted");
    await create(e1, gone, "Deleted title");
    assert.equal((await e1(`/api/item?${itemQuery(gone)}`, { method: "DELETE" })).status, 204);
    assert.equal((await history(e1, uri)).versions.length, 2);
    const seen: string[] = [];
    let titles = 0;
    // Queries that would find versions if they were item data: by the version vocabulary,
    // an old version's triple, and the deleted item's (a full scan is too slow on a store
    // that every suite shares).
    const RCS = "urn:rdf-content-service:";
    for (
      const query of [
        `SELECT * WHERE { GRAPH ?g { ?v <${RCS}versionOf> ?h ; ?p ?o } }`,
        `SELECT * WHERE { ?v <${RCS}content> ?o }`,
        `SELECT * WHERE { GRAPH ?g { ?v <${RCS}principal> ?o } }`,
        `CONSTRUCT { ?v ?p ?o } WHERE { GRAPH ?g { ?v <${RCS}operation> ?op ; ?p ?o } }`,
        `SELECT * WHERE { GRAPH ?g { ?s ?p "Visible title" } }`,
        `SELECT * WHERE { GRAPH ?g { <${gone}> ?p ?o } }`,
        `SELECT * WHERE { GRAPH ?g { <${uri}> ?p ?o } }`,
      ]
    ) {
      const response = await e1(`/sparql?query=${encodeURIComponent(query)}`, {
        headers: { Accept: "application/n-triples, application/sparql-results+json" },
      });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      if (text.includes("Second title")) titles++;
      for (
        const pattern of [/urn:rdf-content-service:/, /base64Binary/, /Visible title/, /Deleted/]
      ) {
        if (pattern.test(text)) seen.push(`${query}: ${pattern}`);
      }
    }
    assert.deepEqual(seen, []);
    assert.ok(titles >= 1, "the queries see the item itself");
  });

  historyTest(
    backend,
    "a bulk import's writes are versions with operation import, by the importer",
    async (service) => {
      const admin = as(service, ADMIN);
      const e1 = as(service, TOKENS.e1);
      const uri = uniqueItemUri("imported");
      const importGraph = async (title: string, mode: string) => {
        const response = await admin(
          `/api/admin/import?collection=${
            encodeURIComponent(DEMO_COLLECTION)
          }&mode=${mode}&wait=true`,
          {
            method: "POST",
            headers: { "Content-Type": "application/n-quads" },
            body: `<${uri}> <${TITLE}> "${title}" <${uri}> .\n`,
          },
        );
        const text = await response.text();
        assert.equal(response.status, 200, text);
        assert.equal(JSON.parse(text).written, 1, text);
      };
      await importGraph("Imported", "create");
      await importGraph("Imported again", "replace");
      assert.equal((await update(e1, uri, "Edited")).status, 204);
      const deleted = await e1(`/api/item?${itemQuery(uri)}`, { method: "DELETE" });
      assert.equal(deleted.status, 204);
      // A deleted item is imported again as a new one, its history going on.
      await importGraph("Imported after the delete", "create");
      const { versions } = await history(e1, uri);
      assert.deepEqual(
        versions.map((v) => [v.version, v.operation, v.principal]),
        [
          [5, "import", "token:a"],
          [4, "delete", "token:e1"],
          [3, "update", "token:e1"],
          [2, "import", "token:a"],
          [1, "import", "token:a"],
        ],
      );
      const first = await e1(`/api/item.nt?${itemQuery(uri)}&version=1`);
      assert.equal(await first.text(), body(uri, "Imported"));
    },
  );
}

for (const backend of HISTORY_BACKENDS) {
  historyTest(
    backend,
    "the diff between two versions, applied to the first as RDF Patch, gives the second (blank nodes included)",
    async (service) => {
      const e1 = as(service, TOKENS.e1);
      const uri = uniqueItemUri("diff");
      const EX = "https://example.org/vocab/";
      const put = async (turtle: string, first: boolean) => {
        const response = await e1(`/api/item?${itemQuery(uri)}`, {
          method: first ? "PUT" : "POST",
          headers: { "Content-Type": "text/turtle" },
          body: turtle,
        });
        assert.equal(response.status, first ? 201 : 204, await response.text());
        return response.headers.get("etag")!;
      };
      await put(
        `<${uri}> <${TITLE}> "Old title" ; <${EX}kept> "same" ;
        <${EX}part> [ <${EX}note> "first part" ] , [ <${EX}note> "second part" ] .`,
        true,
      );
      const secondEtag = await put(
        `<${uri}> <${TITLE}> "New title" ; <${EX}kept> "same" ;
        <${EX}part> [ <${EX}note> "first part" ; <${EX}extra> [ <${EX}note> "nested" ] ] .`,
        false,
      );
      const json = await e1(`/api/item/diff?${itemQuery(uri)}&from=1&to=2`);
      assert.equal(json.status, 200);
      const change = await json.json();
      assert.ok(change.removed.includes(`<${uri}> <${TITLE}> "Old title" .`));
      assert.ok(change.added.includes(`<${uri}> <${TITLE}> "New title" .`));
      const all = [...change.removed, ...change.added].join("\n");
      assert.doesNotMatch(all, /"same"/, "an unchanged ground triple is no change");

      const patch = await e1(`/api/item/diff?${itemQuery(uri)}&from=1&to=2`, {
        headers: { Accept: "application/rdf-patch" },
      });
      assert.equal(patch.status, 200);
      assert.match(patch.headers.get("content-type") ?? "", /^application\/rdf-patch/);
      const first = await (await e1(`/api/item.nt?${itemQuery(uri)}&version=1`)).text();
      const patchText = await patch.text();
      const applied = applyPatch(first, patchText);
      const hashed = await e1(
        `/api/item/hash?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
        { method: "POST", headers: { "Content-Type": "application/n-triples" }, body: applied },
      );
      assert.equal(`"${(await hashed.json()).hash}"`, secondEtag, "patched v1 ≅ v2");

      // The same patch applied by an implementation this project did not write: Jena's.
      if (jena.missing) {
        console.log(`  Jena's RDF Patch applier not run: ${jena.missing}`);
      } else {
        const patched = await applyRdfPatchWithJena(jena.lib, first, patchText);
        assert.equal(patched.blankNodesLoaded, blankNodesOf(first), "no two labels read as one");
        const jenaHash = await e1(
          `/api/item/hash?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
          {
            method: "POST",
            headers: { "Content-Type": "application/n-triples" },
            body: patched.ntriples,
          },
        );
        assert.equal(`"${(await jenaHash.json()).hash}"`, secondEtag, "Jena's patched v1 ≅ v2");
      }

      const missing = await e1(`/api/item/diff?${itemQuery(uri)}&from=1&to=7`);
      assert.equal(
        ((await expectProblem(missing, 404, "version-not-found")).errors as { path: string }[])[0]
          .path,
        "to",
      );
    },
  );
}

/** Distinct blank nodes of an N-Triples graph. */
function blankNodesOf(ntriples: string): number {
  const quads = new Parser({ format: "N-Triples", blankNodePrefix: "" }).parse(ntriples);
  return new Set(
    quads.flatMap((quad) => [quad.subject, quad.object]).filter((term) =>
      term.termType === "BlankNode"
    ).map((term) => term.value),
  ).size;
}

/**
 * Applies an RDF Patch's `D` and `A` rows to an N-Triples graph (blank node labels as the
 * service writes them in both) and returns the result as N-Triples.
 */
function applyPatch(ntriples: string, patch: string): string {
  const parse = (text: string) =>
    new Parser({ format: "N-Triples", blankNodePrefix: "" }).parse(text);
  const key = (line: string) => line.trim();
  const graph = new Set(ntriples.split("\n").filter((line) => line.trim() !== "").map(key));
  for (const line of patch.split("\n")) {
    const [operation, ...rest] = line.split(" ");
    if (operation === "TX" || operation === "TC" || line === "") continue;
    const statement = key(rest.join(" "));
    assert.equal(parse(statement).length, 1, `one triple per row: ${line}`);
    if (operation === "D") assert.ok(graph.delete(statement), `deleted row not in graph: ${line}`);
    else if (operation === "A") graph.add(statement);
    else throw new Error(`unknown patch row: ${line}`);
  }
  return [...graph].join("\n") + "\n";
}

/** The parameter a 400 invalid-parameter names. */
async function problemPath(response: Response): Promise<string> {
  const problem = await expectProblem(response, 400, "invalid-parameter");
  return (problem.errors as { path: string }[])[0].path;
}

/** How many items of the demo collection a search for `word` finds. */
async function searchTotal(call: Call, word: string): Promise<number> {
  const response = await call(
    `/api/search?collection=${encodeURIComponent(DEMO_COLLECTION)}&q=${word}`,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).total;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
