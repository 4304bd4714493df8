/**
 * Issue 43's search acceptance on real data: SKOS (W3C, tests/fixtures/vocabularies/) imported
 * by subject into one collection of a workspace, beside a collection of notes that say
 * "concept" often in their descriptions and never in a label. A workspace search for
 * `q=concept` answers `skos:Concept` first, and its `collection` facet adds up to the total;
 * on every store and search engine pair.
 *
 * SKOS states `rdfs:range` as an IRI on most properties and as a blank node (an
 * `owl:unionOf`) on `skos:member`, so the document field `range` is a string in one document
 * and an object in another: OpenSearch keeps the objects under `range@node`
 * (src/search_opensearch/physical_fields.ts), so every term is indexed (no dead letter in
 * /ready) and both shapes answer their documented paths alike on both engines.
 */
import { strict as assert } from "node:assert";
import { startTestService } from "../support/service.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";

const SKOS_FILE = new URL("../fixtures/vocabularies/skos.nq", import.meta.url);
const SKOS_CONCEPT = "http://www.w3.org/2004/02/skos/core#Concept";
const WORKSPACE = "https://data.example.org/workspace/vocabularies";
const SKOS = "https://data.example.org/collection/vocab-skos";
const NOTES = "https://data.example.org/collection/vocab-notes";
const TOKEN = "vocabulary-admin-token-0123456789";
const HEADERS = { Authorization: `Bearer ${TOKEN}` };

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}  security:
    tokens:
      - { name: admin, token: "${TOKEN}", role: admin }
workspaces:
  - uri: ${WORKSPACE}
    name: Vocabularies
    collections:
      - { uri: ${SKOS}, name: SKOS, index: vocab-skos }
      - { uri: ${NOTES}, name: Notes, index: vocab-notes }
`;

/** A note that says "concept" three times in its description, and has no label. */
function note(n: number): string {
  const uri = `<https://data.example.org/id/vocab-notes/note-${n}>`;
  return `${uri} <http://purl.org/dc/terms/description> ` +
    `"Concept maps: a concept links to a broader concept, note ${n}." ${uri} .\n`;
}

interface Answer {
  total: number;
  totalRelation: string;
  hits: { uri: string; collection: string }[];
  facets: { collection: { value: string; count: number }[] };
}

const PAIRS = testBackends("vocab");
const SKOS_NS = "http://www.w3.org/2004/02/skos/core#";
const RDF_NIL = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil";

for (const pair of PAIRS) {
  Deno.test({
    name: `[workspace search/${pair.name}] q=concept over SKOS and notes: skos:Concept first, ` +
      "the collection facet adds up; range as an IRI and as a blank node",
    ignore: pair.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const env = pair.env();
      const service = await startTestService({ yaml: YAML, env });
      try {
        const imports: [string, string, BodyInit][] = [
          [SKOS, "subject", await Deno.readFile(SKOS_FILE)],
          [NOTES, "graph", Array.from({ length: 5 }, (_, n) => note(n)).join("")],
        ];
        for (const [collection, itemsBy, body] of imports) {
          const query = new URLSearchParams({ collection, itemsBy, wait: "true" });
          if (itemsBy === "subject") query.set("graphs", "ignore");
          const imported = await service.fetch(`/api/admin/import?${query}`, {
            method: "POST",
            headers: { ...HEADERS, "Content-Type": "application/n-quads" },
            body,
          });
          const job = await imported.json();
          assert.equal(job.state, "succeeded", JSON.stringify(job));
        }
        // Imports reach the index through the outbox: wait until every item is searchable.
        const expected = { [SKOS]: 33, [NOTES]: 5 };
        const deadline = Date.now() + 60_000;
        for (const [collection, count] of Object.entries(expected)) {
          while (true) {
            const response = await service.fetch(
              `/api/search?${new URLSearchParams({ collection, size: "0" })}`,
              { headers: HEADERS },
            );
            const { total } = await response.json();
            if (total === count) break;
            if (Date.now() > deadline) {
              const ready = await (await service.fetch("/ready", { headers: HEADERS })).text();
              assert.fail(`${collection} holds ${total} of ${count}; ready: ${ready}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }

        const parameters = new URLSearchParams({
          workspace: WORKSPACE,
          q: "concept",
          facet: "collection",
          size: "10",
        });
        const response = await service.fetch(`/api/search?${parameters}`, { headers: HEADERS });
        const text = await response.text();
        assert.equal(response.status, 200, text);
        const answer = JSON.parse(text) as Answer;
        assert.equal(answer.hits[0]?.uri, SKOS_CONCEPT, text);
        assert.equal(answer.hits[0].collection, SKOS);
        assert.equal(answer.totalRelation, "eq");
        const counts = Object.fromEntries(
          answer.facets.collection.map(({ value, count }) => [value, count]),
        );
        assert.equal(counts[NOTES], 5, text);
        assert.ok(counts[SKOS] > 1, text);
        assert.equal(
          answer.facets.collection.reduce((sum, { count }) => sum + count, 0),
          answer.total,
        );

        // `range` an IRI on most terms, a blank node on skos:member: each on its own path.
        const search = async (filter: string) => {
          const query = new URLSearchParams({ collection: SKOS, filter, sort: "uri" });
          const found = await service.fetch(`/api/search?${query}`, { headers: HEADERS });
          const body = await found.text();
          assert.equal(found.status, 200, body);
          return (JSON.parse(body) as {
            hits: { uri: string; document: Record<string, unknown> }[];
          })
            .hits;
        };
        const byIri = await search(`range:${SKOS_NS}Concept`);
        assert.deepEqual(byIri.map((hit) => hit.uri), [
          `${SKOS_NS}hasTopConcept`,
          `${SKOS_NS}semanticRelation`,
        ]);
        assert.equal(byIri[0].document.range, `${SKOS_NS}Concept`);
        const byNode = await search(`range.unionOf.first:${SKOS_NS}Concept`);
        assert.deepEqual(byNode.map((hit) => hit.uri), [`${SKOS_NS}member`]);
        assert.deepEqual(byNode[0].document.range, {
          types: ["http://www.w3.org/2002/07/owl#Class"],
          unionOf: {
            first: `${SKOS_NS}Concept`,
            rest: { first: `${SKOS_NS}Collection`, rest: RDF_NIL },
          },
        });
        const ready = await (await service.fetch("/ready", { headers: HEADERS })).json();
        assert.equal(ready.checks.deadLetters.detail, "none", JSON.stringify(ready));
      } finally {
        await service.close();
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
      }
    },
  });
}
