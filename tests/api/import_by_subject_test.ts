/**
 * Imports of the dumps people have, items by subject (`itemsBy=subject`), on both stores:
 * schema.org's N-Triples (a part of it, tests/fixtures/schema-org/) into a collection made
 * through the admin API, its lines shuffled so that a subject's triples are far apart; then
 * searched, and an item downloaded as Turtle: the new user's path, through the API. Also
 * Turtle with blank nodes (reached ones go with their subject, others are refused, counted),
 * TriG with a named graph (the import refused before writing, naming the line, unless graph
 * names are ignored), RDF/XML and JSON-LD; an import that wrote nothing is `failed`, and
 * identical refusals are listed once with their number.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_WORKSPACE,
  startTestService,
  type StoreBackend,
  storeBackends,
  storeTest,
  type TestService,
} from "../support/service.ts";
import type { ImportJob } from "../../src/bulk/import_jobs.ts";

const SCHEMA = Deno.readTextFileSync(
  new URL("../fixtures/schema-org/schema-org-part.nt", import.meta.url),
);
const SCHEMA_LINES = SCHEMA.trim().split("\n");
const SCHEMA_SUBJECTS = new Set(SCHEMA_LINES.map((line) => line.split(" ")[0].slice(1, -1)));

async function newCollection(service: TestService): Promise<string> {
  const uri = `https://data.example.org/collection/vocab-${crypto.randomUUID()}`;
  const made = await service.fetch("/api/admin/collections", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      workspace: DEMO_WORKSPACE,
      uri,
      label: "Vocabulary",
      index: {
        name: `vocab-${crypto.randomUUID().slice(0, 8)}`,
        fields: [{ name: "label", path: "<http://www.w3.org/2000/01/rdf-schema#label>" }],
      },
    }),
  });
  assert.equal(made.status, 201, await made.clone().text());
  return uri;
}

async function importBody(
  service: TestService,
  collection: string,
  type: string,
  body: string,
  itemsBy = "subject",
  more: Record<string, string> = {},
): Promise<ImportJob> {
  const query = new URLSearchParams({ collection, itemsBy, wait: "true", ...more });
  const response = await service.fetch(`/api/admin/import?${query}`, {
    method: "POST",
    headers: { "Content-Type": type },
    body,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json();
}

/** A fixed shuffle (every seventh line first, and so on): subjects' lines far apart. */
function scattered(lines: string[]): string {
  const out: string[] = [];
  for (let start = 0; start < 7; start++) {
    for (let i = start; i < lines.length; i += 7) out.push(lines[i]);
  }
  return out.join("\n") + "\n";
}

for (const backend of storeBackends({ allStores: true })) {
  importTest(
    backend,
    "schema.org N-Triples by subject: imported, searched, downloaded as Turtle",
    async (service) => {
      const collection = await newCollection(service);
      const job = await importBody(
        service,
        collection,
        "application/n-triples",
        scattered(SCHEMA_LINES),
      );
      assert.equal(job.state, "succeeded", JSON.stringify(job.errors));
      assert.equal(job.itemsBy, "subject");
      assert.equal(job.written, SCHEMA_SUBJECTS.size);
      assert.equal(job.refused, 0);

      await service.services.deps.indexOutbox.drain();
      const search = await (await service.fetch(
        `/api/search?collection=${encodeURIComponent(collection)}&q=person&size=50`,
      )).json();
      const hits = search.hits.map((hit: { uri: string }) => hit.uri);
      assert.ok(hits.includes("http://schema.org/Person"), JSON.stringify(hits));

      const ttl = await service.fetch(
        `/api/item.ttl?collection=${encodeURIComponent(collection)}&item=${
          encodeURIComponent("http://schema.org/Person")
        }`,
      );
      assert.equal(ttl.status, 200);
      assert.match(ttl.headers.get("content-type") ?? "", /^text\/turtle/);
      const text = await ttl.text();
      const expected = SCHEMA_LINES.filter((line) =>
        line.startsWith("<http://schema.org/Person> ")
      );
      assert.match(text, /"A person \(alive, dead, undead, or fictional\)\."/);
      const nt = await (await service.fetch(
        `/api/item.nt?collection=${encodeURIComponent(collection)}&item=${
          encodeURIComponent("http://schema.org/Person")
        }`,
      )).text();
      assert.deepEqual(nt.trim().split("\n").sort(), expected.sort());

      // The same file by graph: every line is in the default graph, so nothing is written.
      const other = await newCollection(service);
      const byGraph = await importBody(service, other, "application/n-quads", SCHEMA, "graph");
      assert.equal(byGraph.state, "failed");
      assert.equal(byGraph.written, 0);
      assert.match(byGraph.errors.at(-1)?.message ?? "", /Nothing was imported.*itemsBy=subject/);
    },
  );

  importTest(
    backend,
    "blank nodes go with the subject that reaches them; a named graph only with graphs=ignore",
    async (service) => {
      const collection = await newCollection(service);
      const trig = `@prefix ex: <https://ex.example.org/> .
ex:a ex:title "A" ; ex:part [ ex:title "inner" ; ex:deeper [ ex:title "deepest" ] ] .
_:orphan ex:title "nobody reaches me" .
_:orphan2 ex:title "nor me" .
ex:b ex:title "B" .
ex:g {
  ex:c ex:title "in a named graph" . ex:c ex:title "twice" . }
ex:a ex:seeAlso ex:b .
`;
      // Without graphs=ignore the graph name would be lost: nothing is written, the line named.
      const refused = await importBody(service, collection, "application/trig", trig);
      assert.equal(refused.state, "failed");
      assert.equal(refused.outcome, "failed");
      assert.equal(refused.written, 0);
      const reason = refused.errors.at(-1)!;
      assert.deepEqual([reason.type, reason.line], ["named-graphs-not-allowed", 6]);
      assert.match(reason.message, /named graph <https:\/\/ex\.example\.org\/g>.*graphs=ignore/);
      const none = await service.fetch(
        `/api/item?collection=${encodeURIComponent(collection)}&item=${
          encodeURIComponent("https://ex.example.org/a")
        }`,
      );
      assert.equal(none.status, 404);
      await none.body?.cancel();
      // `graphs` is for items by subject: by graph, a graph name is an item's URI.
      const wrong = await service.fetch(
        `/api/admin/import?collection=${encodeURIComponent(collection)}&graphs=ignore`,
        { method: "POST", headers: { "Content-Type": "application/trig" }, body: trig },
      );
      assert.equal(wrong.status, 400);
      assert.equal((await wrong.json()).errors[0].path, "graphs");

      const job = await importBody(service, collection, "application/trig", trig, "subject", {
        graphs: "ignore",
      });
      assert.equal(job.state, "succeeded", JSON.stringify(job.errors));
      assert.equal(job.graphs, "ignore");
      assert.equal(job.written, 3);
      // The orphans: two parts refused, so the import is incomplete, and says so.
      assert.equal(job.outcome, "incomplete");
      assert.equal(
        job.summary,
        "incomplete: 5 items, 3 written, 0 unchanged, 0 skipped, 2 refused",
      );
      const types = new Map(job.errors.map((error) => [error.type, error.count]));
      assert.equal(types.get("blank-node-not-reached"), 2);
      const c = await (await service.fetch(
        `/api/item.nt?collection=${encodeURIComponent(collection)}&item=${
          encodeURIComponent("https://ex.example.org/c")
        }`,
      )).text();
      assert.equal(c.trim().split("\n").length, 2, c);
      const a = await (await service.fetch(
        `/api/item.nt?collection=${encodeURIComponent(collection)}&item=${
          encodeURIComponent("https://ex.example.org/a")
        }`,
      )).text();
      assert.equal(a.trim().split("\n").length, 6, a);
      assert.match(a, /"deepest"/);
    },
  );

  importTest(
    backend,
    "RDF/XML and JSON-LD by subject; identical refusals are listed once",
    async (service) => {
      const collection = await newCollection(service);
      const rdfxml = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="https://ex.example.org/">
  <rdf:Description rdf:about="https://ex.example.org/x"><ex:title>X</ex:title></rdf:Description>
  <rdf:Description rdf:about="https://ex.example.org/y"><ex:title>Y</ex:title></rdf:Description>
</rdf:RDF>`;
      const xml = await importBody(service, collection, "application/rdf+xml", rdfxml);
      assert.equal(xml.state, "succeeded", JSON.stringify(xml.errors));
      assert.equal(xml.written, 2);
      const jsonld = JSON.stringify([
        { "@id": "https://ex.example.org/j1", "https://ex.example.org/title": "J1" },
        { "@id": "https://ex.example.org/j2", "https://ex.example.org/title": "J2" },
      ]);
      const json = await importBody(service, collection, "application/ld+json", jsonld);
      assert.equal(json.written, 2);

      // By graph, default-graph runs between named graphs: one listed refusal, counted.
      const nquads = [1, 2, 3].map((n) =>
        `<https://ex.example.org/d${n}> <https://ex.example.org/p> "d" .\n` +
        `<https://ex.example.org/g${n}> <https://ex.example.org/p> "g" <https://ex.example.org/g${n}> .\n`
      ).join("");
      const byGraph = await importBody(service, collection, "application/n-quads", nquads, "graph");
      assert.equal(byGraph.outcome, "incomplete");
      assert.equal(byGraph.items, 6);
      assert.equal(byGraph.written, 3);
      assert.equal(byGraph.refused, 3);
      assert.equal(byGraph.errors.length, 1);
      assert.equal(byGraph.errors[0].type, "default-graph-refused");
      assert.equal(byGraph.errors[0].count, 3);

      // A Turtle body by graph is refused before anything is read, with the way out named.
      const refused = await service.fetch(
        `/api/admin/import?collection=${encodeURIComponent(collection)}`,
        { method: "POST", headers: { "Content-Type": "text/turtle" }, body: "<a:b> <a:c> <a:d> ." },
      );
      assert.equal(refused.status, 415);
      assert.match((await refused.json()).detail, /itemsBy=subject/);
    },
  );
}

function importTest(
  backend: StoreBackend,
  name: string,
  fn: (service: TestService) => Promise<void>,
) {
  storeTest("import by subject", backend, name, fn);
}

Deno.test({
  name: "[import by subject/cli] deno task import FILE.nt imports by subject; refusals exit 3",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    const dir = await Deno.makeTempDir({ prefix: "rcs-cli-subject-" });
    try {
      const collection = await newCollection(service);
      const run = async (file: string) => {
        const output = await new Deno.Command(Deno.execPath(), {
          args: ["task", "-q", "import", file, "--collection", collection, "--url", service.url],
          cwd: new URL("../../", import.meta.url),
          env: { NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
      };
      // The extension says N-Triples, so items go by subject without being told.
      const schema = new URL("../fixtures/schema-org/schema-org-part.nt", import.meta.url).pathname;
      const imported = await run(schema);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stderr, new RegExp(`${SCHEMA_SUBJECTS.size} written`));
      // Blank nodes nobody reaches: refused, listed once with their number, exit 3.
      await Deno.writeTextFile(
        `${dir}/orphans.ttl`,
        '<https://ex.example.org/k> <https://ex.example.org/p> "k" .\n' +
          '_:x <https://ex.example.org/p> "x" .\n_:y <https://ex.example.org/p> "y" .\n',
      );
      const refused = await run(`${dir}/orphans.ttl`);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(
        refused.stderr,
        /import incomplete: 3 items, 1 written, 0 unchanged, 0 skipped, 2 refused in /,
      );
      assert.match(refused.stderr, /blank-node-not-reached: .*\(2 times\)/);
    } finally {
      await service.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
