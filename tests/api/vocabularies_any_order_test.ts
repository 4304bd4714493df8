/**
 * Issue 43's acceptance for items keyed by (collection, IRI), on real data: seven W3C and
 * community vocabularies as npm's `@zazuko/rdf-vocabularies` ships them (DCAT, FOAF, ORG,
 * PROV, SKOS, GeoSPARQL, Time; tests/fixtures/vocabularies/) imported by subject, one
 * collection each, in one order into one workspace and in the reverse order into another.
 * Vocabularies describe each other's terms (DCAT states a 2-triple stub about
 * `foaf:homepage`, FOAF 11 triples in this release of the package), so before items were keyed by collection the first
 * import took such an IRI and the later one lost its triples.
 *
 * Checked against the files themselves, on the embedded store and on Fuseki:
 * - each collection holds every IRI subject its file describes, with the triples the file
 *   states about it (and the blank nodes it reaches), whatever the order;
 * - both orders give the same contents, collection by collection;
 * - `SELECT (COUNT(*) AS ?n) FROM <C> { ?s ?p ?o }` is C's triple count, and one query for
 *   classes per collection (through the collections graph) agrees with a count per collection.
 */
import { strict as assert } from "node:assert";
import { type BlankNode, type NamedNode, Parser, type Quad } from "n3";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";

const NAMES = ["dcat", "foaf", "org", "prov", "skos", "geo", "time"] as const;
type Name = typeof NAMES[number];
const FOAF_HOMEPAGE = "http://xmlns.com/foaf/0.1/homepage";
const OWL_CLASS = "http://www.w3.org/2002/07/owl#Class";
const RUN = crypto.randomUUID().slice(0, 8);
const ORDERS = { forward: [...NAMES], reverse: [...NAMES].reverse() };

const collectionOf = (order: string, name: Name) =>
  `https://data.example.org/collection/vocab-${order}-${name}-${RUN}`;

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}
workspaces:
${
  Object.keys(ORDERS).map((order) =>
    `  - uri: https://data.example.org/workspace/vocab-${order}-${RUN}
    name: Vocabularies ${order}
    collections:
${
      NAMES.map((name) =>
        `      - { uri: ${collectionOf(order, name)}, name: ${name}, index: v-${order}-${name} }`
      ).join("\n")
    }`
  ).join("\n")
}
`;

/** What a file says, item by item: each IRI subject's triples and those of the blank nodes it reaches. */
interface Expected {
  text: string;
  items: Map<string, number>;
  triples: number;
  /** Blank node subjects no IRI subject reaches: the import refuses them, and says so. */
  unreached: number;
}

async function expectedOf(name: Name): Promise<Expected> {
  const text = await Deno.readTextFile(
    new URL(`../fixtures/vocabularies/${name}.nq`, import.meta.url),
  );
  const quads = new Parser({ format: "N-Quads" }).parse(text);
  const bySubject = new Map<string, Quad[]>();
  for (const quad of quads) {
    const key = termKey(quad.subject as NamedNode | BlankNode);
    bySubject.set(key, [...(bySubject.get(key) ?? []), quad]);
  }
  const items = new Map<string, number>();
  const reached = new Set<string>();
  for (const [key, own] of bySubject) {
    if (key.startsWith("_:")) continue;
    // The item: its triples and, breadth first, those of every blank node they reach.
    const seen = new Set([key]);
    const queue = [...own];
    let count = 0;
    while (queue.length > 0) {
      const quad = queue.shift()!;
      count++;
      if (quad.object.termType !== "BlankNode") continue;
      const blank = termKey(quad.object);
      if (seen.has(blank)) continue;
      seen.add(blank);
      reached.add(blank);
      queue.push(...(bySubject.get(blank) ?? []));
    }
    items.set(key.slice(1, -1), count);
  }
  let triples = 0;
  for (const count of items.values()) triples += count;
  const unreached =
    [...bySubject.keys()].filter((key) => key.startsWith("_:") && !reached.has(key)).length;
  return { text, items, triples, unreached };
}

function termKey(term: NamedNode | BlankNode): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : `<${term.value}>`;
}

async function importVocabulary(service: TestService, collection: string, body: string) {
  const query = new URLSearchParams({
    collection,
    itemsBy: "subject",
    graphs: "ignore",
    wait: "true",
  });
  const response = await service.fetch(`/api/admin/import?${query}`, {
    method: "POST",
    headers: { "Content-Type": "application/n-quads" },
    body,
  });
  const job = await response.json();
  assert.equal(job.state, "succeeded", JSON.stringify(job));
  return job;
}

/** A collection's export: item → its N-Triples lines, blank node labels made alike. */
async function exported(service: TestService, collection: string) {
  const response = await service.fetch(
    `/api/admin/export?${new URLSearchParams({ collection })}`,
    { headers: { Accept: "application/n-quads" } },
  );
  assert.equal(response.status, 200);
  const items = new Map<string, string[]>();
  for (const quad of new Parser({ format: "N-Quads" }).parse(await response.text())) {
    const line = [quad.subject, quad.predicate, quad.object].map((term) =>
      term.termType === "BlankNode" ? "_:b" : JSON.stringify(term.toJSON())
    ).join(" ");
    items.set(quad.graph.value, [...(items.get(quad.graph.value) ?? []), line]);
  }
  for (const lines of items.values()) lines.sort();
  return items;
}

async function select(service: TestService, query: string): Promise<Record<string, string>[]> {
  const response = await service.fetch(`/sparql?${new URLSearchParams({ query })}`, {
    headers: { Accept: "application/sparql-results+json" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).results.bindings.map((binding: Record<string, { value: string }>) =>
    Object.fromEntries(Object.entries(binding).map(([key, term]) => [key, term.value]))
  );
}

for (const backend of storeBackends()) {
  Deno.test({
    name: `[vocabularies/${backend.name}] seven vocabularies in any order: every collection ` +
      "holds what its file describes",
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({ yaml: YAML, env: backend.env });
      try {
        const expected = Object.fromEntries(
          await Promise.all(NAMES.map(async (name) => [name, await expectedOf(name)] as const)),
        ) as Record<Name, Expected>;
        for (const [order, names] of Object.entries(ORDERS)) {
          for (const name of names) {
            const job = await importVocabulary(
              service,
              collectionOf(order, name),
              expected[name].text,
            );
            const { items, unreached } = expected[name];
            assert.deepEqual(
              [job.written, job.refused, job.outcome],
              [items.size, unreached, unreached === 0 ? "complete" : "incomplete"],
              `${order} ${name}: ${JSON.stringify(job)}`,
            );
          }
        }

        for (const name of NAMES) {
          const forward = await exported(service, collectionOf("forward", name));
          const reverse = await exported(service, collectionOf("reverse", name));
          // Every IRI subject of the file is an item, with every triple the file states of it.
          assert.deepEqual(
            [...forward.keys()].sort(),
            [...expected[name].items.keys()].sort(),
            name,
          );
          for (const [item, count] of expected[name].items) {
            assert.equal(forward.get(item)?.length, count, `${name} <${item}>`);
          }
          assert.deepEqual(reverse, forward, `${name}: the same in both orders`);
        }

        // The IRI two vocabularies describe: each collection answers its own triples.
        for (const order of Object.keys(ORDERS)) {
          const counts = [["foaf", 11], ["dcat", 2]] as const;
          for (const [name, count] of counts) {
            assert.equal(expected[name].items.get(FOAF_HOMEPAGE), count, `${name}'s file`);
            const response = await service.fetch(
              `/api/item.nt?${new URLSearchParams({
                collection: collectionOf(order, name),
                item: FOAF_HOMEPAGE,
              })}`,
            );
            assert.equal(response.status, 200, `${order} ${name}`);
            const lines = (await response.text()).trim().split("\n");
            assert.equal(lines.length, count, `${order} ${name}: foaf:homepage`);
          }
        }

        // Collections in queries: FROM <C> counts C's triples; classes per collection agree.
        const perCollection: Record<string, string> = {};
        for (const name of NAMES) {
          const collection = collectionOf("forward", name);
          const [{ n }] = await select(
            service,
            `SELECT (COUNT(*) AS ?n) FROM <${collection}> { ?s ?p ?o }`,
          );
          assert.equal(Number(n), expected[name].triples, `${name}: FROM <C> count`);
          const [classes] = await select(
            service,
            `SELECT (COUNT(DISTINCT ?class) AS ?n) FROM <${collection}> { ?class a <${OWL_CLASS}> }`,
          );
          perCollection[collection] = classes.n;
        }
        const grouped = await select(
          service,
          `PREFIX dct: <http://purl.org/dc/terms/>
          SELECT ?c (COUNT(DISTINCT ?class) AS ?n) WHERE {
            VALUES ?c { ${NAMES.map((name) => `<${collectionOf("forward", name)}>`).join(" ")} }
            GRAPH <urn:rdf-content-service:collections> { ?g dct:isPartOf ?c }
            GRAPH ?g { ?class a <${OWL_CLASS}> }
          } GROUP BY ?c`,
        );
        const byQuery = Object.fromEntries(grouped.map((row) => [row.c, row.n]));
        for (const [collection, n] of Object.entries(perCollection)) {
          assert.equal(byQuery[collection] ?? "0", n, `${collection}: classes`);
        }
        assert.ok(
          Object.values(perCollection).filter((n) => Number(n) > 0).length >= 5,
          JSON.stringify(perCollection),
        );
      } finally {
        await service.close();
      }
    },
  });
}
