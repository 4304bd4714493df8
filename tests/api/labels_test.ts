/**
 * `GET /api/labels` over real HTTP on each store backend: the label of each IRI in the
 * reader's language (`lang`, `Accept-Language`), the label properties in their order, labels
 * read from another collection's items, IRIs without a label left out, the prefixes the
 * service knows, and the refusals.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const SKOS = "http://www.w3.org/2004/02/skos/core#";
const SCHEMA = "http://schema.org/";
const DCT = "http://purl.org/dc/terms/";

async function put(service: TestService, uri: string, turtle: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}

async function labels(
  service: TestService,
  iris: string[],
  extra: Record<string, string> = {},
  headers: HeadersInit = {},
) {
  const query = new URLSearchParams(extra);
  for (const iri of iris) query.append("iri", iri);
  const response = await service.fetch(`/api/labels?${query}`, { headers });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as {
    labels: Record<string, { value: string; language?: string; property: string }>;
    prefixes: Record<string, string>;
  };
}

for (const backend of storeBackends({ allStores: true })) {
  Deno.test({
    name: `[labels/${backend.name}] labels in the reader's language, prefixes, refusals`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const service = await startTestService({ env: backend.env });
      try {
        const base = uniqueItemUri("labels");
        const [person, concept, titled, bare] = ["person", "concept", "titled", "bare"]
          .map((name) => `${base}/${name}`);
        await put(
          service,
          person,
          `<${person}> <${RDFS}label> "Person"@en, "Person"@de-CH, "Personne"@fr ;
             <${SCHEMA}name> "schema name" .`,
        );
        await put(
          service,
          concept,
          `<${concept}> <${SKOS}prefLabel> "Konzept"@de ; <${RDFS}label> "concept label" .`,
        );
        await put(service, titled, `<${titled}> <${DCT}title> "A title" .`);
        await put(service, bare, `<${bare}> <${DCT}identifier> 42 .`);
        const all = [person, concept, titled, bare, "https://nowhere.example.org/x"];

        await t.step("one label per IRI; none for an IRI without one", async () => {
          const answer = await labels(service, all, { lang: "fr" });
          assert.deepEqual(Object.keys(answer.labels).sort(), [concept, person, titled].sort());
          assert.deepEqual(answer.labels[person], {
            value: "Personne",
            language: "fr",
            property: `${RDFS}label`,
          });
          // No French: skos:prefLabel comes before rdfs:label, but an untagged label before
          // another language.
          assert.deepEqual(answer.labels[concept], {
            value: "concept label",
            property: `${RDFS}label`,
          });
          assert.deepEqual(answer.labels[titled], { value: "A title", property: `${DCT}title` });
        });

        await t.step("the language from Accept-Language, primary subtags matching", async () => {
          const german = await labels(service, [person, concept], {}, {
            "Accept-Language": "de;q=0.9, fr;q=0.1",
          });
          assert.equal(german.labels[person].language?.toLowerCase(), "de-ch");
          assert.equal(german.labels[concept].value, "Konzept");
          // `lang` wins over the header.
          const english = await labels(service, [person], { lang: "en" }, {
            "Accept-Language": "de",
          });
          assert.equal(english.labels[person].language, "en");
        });

        await t.step("prefixes: the well-known ones, schema: among them", async () => {
          const answer = await labels(service, [person], { collection: DEMO_COLLECTION });
          assert.equal(answer.prefixes.schema, SCHEMA);
          assert.equal(answer.prefixes.rdfs, RDFS);
          assert.equal(answer.prefixes.dct, DCT);
        });

        await t.step("refusals name the parameter", async () => {
          await expectProblem(
            await service.fetch("/api/labels?iri=not%20an%20iri"),
            400,
            "invalid-iri",
          );
          const many = new URLSearchParams();
          for (let n = 0; n <= 500; n++) many.append("iri", `urn:x:${n}`);
          const tooMany = await expectProblem(
            await service.fetch(`/api/labels?${many}`),
            400,
            "invalid-parameter",
          );
          assert.deepEqual(tooMany.errors, [{ path: "iri", message: "more than 500" }]);
          await expectProblem(
            await service.fetch(
              `/api/labels?iri=urn:x:1&collection=${encodeURIComponent("https://x.org/none")}`,
            ),
            404,
            "collection-not-found",
          );
          // IRIs that break SPARQL never reach the store.
          await expectProblem(
            await service.fetch(`/api/labels?iri=${encodeURIComponent("urn:x> } DROP ALL {")}`),
            400,
            "invalid-iri",
          );
        });
      } finally {
        await service.close();
      }
    },
  });
}
