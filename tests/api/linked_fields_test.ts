/**
 * A collection's own search fields over HTTP (`index.fields`, docs/configuration.md), on
 * every (store, search engine) pair: property paths that leave the item and read the label
 * of the concept it points to, found by `q` in the label's language; renaming the concept
 * (one write) changes what the items are found by with no indexing job run; a concept
 * created after the items that point to it, and one deleted, update them too; an IRI the
 * items' own collection holds as well is read from there.
 */
import { strict as assert } from "node:assert";
import { startTestService, type TestService } from "../support/service.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";

const CONCEPTS = "https://data.example.org/collection/concepts";
const DOCUMENTS = "https://data.example.org/collection/papers";
const DCT = "http://purl.org/dc/terms/";
const SKOS = "http://www.w3.org/2004/02/skos/core#";
const EX = "https://data.example.org/id/";

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}workspaces:
  - uri: https://data.example.org/workspace/science
    name: Science
    collections:
      - uri: ${CONCEPTS}
        name: Concepts
        index: concepts
      - uri: ${DOCUMENTS}
        name: Papers
        index:
          name: papers
          fields:
            - name: subject
              path: dct:subject/skos:prefLabel
            - name: field
              path: dct:subject/skos:broader+/skos:prefLabel
            - name: subjectIri
              path: dct:subject
              type: iri
            - name: year
              path: dct:date
              type: integer
              multiple: false
`;

/**
 * Every pair, and the embedded pair on a data directory (not in memory): there the outbox's
 * batches run on the indexing workers, which read the items and queue their dependents.
 */
const cases = [
  ...testBackends("linked-fields").map((backend) => ({ ...backend, onFile: false })),
  { name: "embedded+embedded on file", ignore: false, env: () => ({}), onFile: true },
];

for (const backend of cases) {
  Deno.test({
    name: `[linked fields/${backend.name}] linked labels are searchable and kept current`,
    ignore: backend.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const env: Record<string, string> = backend.env();
      const dataDir = backend.onFile ? await Deno.makeTempDir({ prefix: "rcs-test-" }) : undefined;
      const service = await startTestService({ yaml: YAML, env, dataDir });
      const drain = () => service.services.deps.indexOutbox.drain();
      try {
        await put(service, CONCEPTS, "biology", `<${EX}biology> <${SKOS}prefLabel> "Biology"@en .`);
        await put(
          service,
          CONCEPTS,
          "photo",
          `<${EX}photo> <${SKOS}prefLabel> "Photosynthesis"@en ; <${SKOS}broader> <${EX}biology> .`,
        );
        for (
          const [name, subject] of [["leaves", "photo"], ["roots", "photo"], ["moulds", "fungi"]]
        ) {
          await put(
            service,
            DOCUMENTS,
            name,
            `<${EX}${name}> <${DCT}title> "On ${name}" ; <${DCT}subject> <${EX}${subject}> ; ` +
              `<${DCT}date> 2024 .`,
          );
        }
        await drain();

        await t.step("the label of what an item points to finds it, in its language", async () => {
          assert.deepEqual(await found(service, "photosynthesis"), ["leaves", "roots"]);
          assert.deepEqual(await found(service, "biology"), ["leaves", "roots"], "via broader+");
          const hit = (await search(service, "q=leaves")).hits[0];
          // Fields are arrays unless `multiple: false`.
          assert.deepEqual(hit.document.subject, ["Photosynthesis"]);
          assert.deepEqual(hit.document.field, ["Biology"]);
          assert.deepEqual(hit.document.subjectIri, [`${EX}photo`]);
          assert.equal(hit.document.year, 2024);
          assert.deepEqual(hit.document.linkedItems, [`${EX}biology`, `${EX}photo`]);
          // English stemming of the linked label ("Photosynthesis"@en).
          assert.deepEqual(await found(service, "photosynthesis", "en"), ["leaves", "roots"]);
          const facets = (await search(service, "facet=subjectIri&size=0")).facets.subjectIri;
          assert.deepEqual(facets, [
            { value: `${EX}photo`, count: 2 },
            { value: `${EX}fungi`, count: 1 },
          ]);
        });

        await t.step("renaming the concept re-indexes the items, no job run", async () => {
          const jobsBefore = await jobCount(service);
          await update(
            service,
            CONCEPTS,
            "photo",
            `<${EX}photo> <${SKOS}prefLabel> "Chlorophylls"@en ; <${SKOS}broader> <${EX}biology> .`,
          );
          await drain();
          assert.deepEqual(await found(service, "photosynthesis"), []);
          assert.deepEqual(await found(service, "chlorophyll", "en"), ["leaves", "roots"]);
          assert.equal(await jobCount(service), jobsBefore, "no indexing job ran");
        });

        await t.step(
          "a concept created later, and a concept deleted, update them too",
          async () => {
            assert.deepEqual(await found(service, "fungi"), []);
            await put(service, CONCEPTS, "fungi", `<${EX}fungi> <${SKOS}prefLabel> "Fungi"@en .`);
            await drain();
            assert.deepEqual(await found(service, "fungi"), ["moulds"]);
            const deleted = await service.fetch(itemPath(CONCEPTS, "biology"), {
              method: "DELETE",
            });
            assert.equal(deleted.status, 204);
            await drain();
            assert.deepEqual(await found(service, "biology"), []);
            assert.deepEqual(await found(service, "chlorophylls"), ["leaves", "roots"]);
          },
        );

        await t.step(
          "an IRI the papers' own collection holds too is read from there",
          async () => {
            // Items are keyed by (collection, IRI): the papers collection describes fungi too.
            await put(service, DOCUMENTS, "fungi", `<${EX}fungi> <${SKOS}prefLabel> "Mycota"@en .`);
            await drain();
            assert.deepEqual(await found(service, "mycota"), ["fungi", "moulds"]);
            assert.deepEqual(await found(service, "fungi"), []);
            const hit = (await search(service, "q=moulds")).hits[0];
            assert.deepEqual(hit.document.subject, ["Mycota"]);
          },
        );

        await t.step("a value its field cannot hold fails only that item's document", async () => {
          await put(
            service,
            DOCUMENTS,
            "undated",
            `<${EX}undated> <${DCT}title> "On undated things" ; <${DCT}date> "soon" .`,
          );
          await put(service, DOCUMENTS, "dated", `<${EX}dated> <${DCT}title> "On dated things" .`);
          await drain();
          assert.deepEqual(await found(service, "things"), ["dated"]);
        });
      } finally {
        await service.close();
        if (dataDir) await Deno.remove(dataDir, { recursive: true });
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
      }
    },
  });
}

function itemPath(collection: string, name: string): string {
  return `/api/item?collection=${encodeURIComponent(collection)}&item=${
    encodeURIComponent(EX + name)
  }`;
}

async function put(service: TestService, collection: string, name: string, turtle: string) {
  const response = await service.fetch(itemPath(collection, name), {
    method: "PUT",
    headers: { "Content-Type": "text/turtle" },
    body: turtle,
  });
  assert.equal(response.status, 201, await response.text());
}

async function update(service: TestService, collection: string, name: string, turtle: string) {
  const response = await service.fetch(itemPath(collection, name), {
    method: "POST",
    headers: { "Content-Type": "text/turtle" },
    body: turtle,
  });
  assert.equal(response.status, 204, await response.text());
}

// deno-lint-ignore no-explicit-any
async function search(service: TestService, query: string): Promise<any> {
  const response = await service.fetch(
    `/api/search?collection=${encodeURIComponent(DOCUMENTS)}&${query}`,
  );
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json();
}

/** The local names of the papers `q` finds. */
async function found(service: TestService, q: string, language?: string): Promise<string[]> {
  const answer = await search(
    service,
    `q=${encodeURIComponent(q)}${language ? `&language=${language}` : ""}`,
  );
  return (answer.hits as { uri: string }[]).map((hit) => hit.uri.slice(EX.length)).sort();
}

async function jobCount(service: TestService): Promise<number> {
  const response = await service.fetch("/api/admin/index/jobs");
  assert.equal(response.status, 200);
  const body = await response.json();
  return (Array.isArray(body) ? body : body.jobs).length;
}
