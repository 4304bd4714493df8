/**
 * Downloads and item reads in Turtle, N3 and RDF/XML name namespaces with the prefixes the
 * service knows (the well-known ones, `schema:` among them, and the collection context's),
 * declare only those the item uses, and invent `ns0:` only for a namespace nobody named;
 * each file, read again with another parser (oxigraph), is the same graph as the item.
 */
import { strict as assert } from "node:assert";
import oxigraph from "oxigraph";
import { Parser, type Quad } from "n3";
import { startTestService } from "../support/service.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";

const COLLECTION = "https://data.example.org/collection/prefixed";
const ITEM = "https://data.example.org/id/prefixed/1";
const EX = "https://vocab.example.org/terms#";
const UNNAMED = "https://unnamed.example.net/v/";

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
workspaces:
  - uri: https://data.example.org/workspace/prefixed
    name: Prefixed
    collections:
      - uri: ${COLLECTION}
        name: Prefixed
        index: prefixed
        context:
          ex: "${EX}"
`;

const TURTLE = `
<${ITEM}> a <http://schema.org/Person> ;
  <http://schema.org/name> "Ada" ;
  <http://purl.org/dc/terms/created> "2020-01-02"^^<http://www.w3.org/2001/XMLSchema#date> ;
  <${EX}colour> "green"@en ;
  <${UNNAMED}size> 3 ;
  <http://xmlns.com/foaf/0.1/knows> [ <http://schema.org/name> "Bob" ] .`;

/** The file read again by oxigraph (not the writer's library), as N-Triples quads. */
function reread(text: string, mediaType: string): Quad[] {
  const store = new oxigraph.Store();
  store.load(text, { format: mediaType, base_iri: ITEM });
  const nquads = store.dump({ format: "application/n-quads" });
  return new Parser({ format: "N-Quads" }).parse(nquads);
}

Deno.test({
  name: "[downloads] Turtle, N3 and RDF/XML use the service's prefixes and keep the graph",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const service = await startTestService({ yaml: YAML });
    const query = `collection=${encodeURIComponent(COLLECTION)}&item=${encodeURIComponent(ITEM)}`;
    try {
      const created = await service.fetch(`/api/item?${query}`, {
        method: "PUT",
        headers: { "Content-Type": "text/turtle" },
        body: TURTLE,
      });
      assert.equal(created.status, 201, await created.text());
      const expected = (await canonicalHash(new Parser().parse(TURTLE))).hash;
      const download = async (extension: string) => {
        const response = await service.fetch(`/api/item.${extension}?${query}`);
        assert.equal(response.status, 200);
        return await response.text();
      };

      await t.step("Turtle: schema:, dct:, xsd:, foaf: and the context's ex:", async () => {
        const turtle = await download("ttl");
        for (
          const [name, namespace] of [
            ["schema", "http://schema.org/"],
            ["dct", "http://purl.org/dc/terms/"],
            ["xsd", "http://www.w3.org/2001/XMLSchema#"],
            ["foaf", "http://xmlns.com/foaf/0.1/"],
            ["ex", EX],
          ]
        ) {
          assert.match(
            turtle,
            new RegExp(`@prefix ${name}: <${namespace.replace(/[.#]/g, "\\$&")}>`),
          );
        }
        assert.match(turtle, /schema:name "Ada"/);
        assert.match(turtle, /ex:colour "green"@en/);
        // Unused prefixes are not declared, the other name of dct: neither.
        assert.doesNotMatch(turtle, /@prefix (owl|skos|rdfs|dcterms):/);
        assert.doesNotMatch(turtle, /\bns\d+:/);
        assert.equal((await canonicalHash(reread(turtle, "text/turtle"))).hash, expected);
        // The item read as Turtle says the same.
        const read = await service.fetch(`/api/item?${query}`, {
          headers: { Accept: "text/turtle" },
        });
        assert.equal(await read.text(), turtle);
      });

      await t.step("N3 likewise", async () => {
        const n3 = await download("n3");
        assert.match(n3, /@prefix schema: <http:\/\/schema\.org\/>/);
        assert.equal((await canonicalHash(reread(n3, "text/n3"))).hash, expected);
      });

      await t.step("RDF/XML: named namespaces, ns0 only for the unnamed one", async () => {
        const xml = await download("rdf");
        assert.match(xml, /xmlns:schema="http:\/\/schema\.org\/"/);
        assert.match(xml, /xmlns:ex="https:\/\/vocab\.example\.org\/terms#"/);
        assert.match(xml, /<schema:name>Ada<\/schema:name>/);
        const invented = [...xml.matchAll(/xmlns:(ns\d+)="([^"]*)"/g)].map((m) => m[2]);
        assert.deepEqual(invented, [UNNAMED]);
        assert.equal((await canonicalHash(reread(xml, "application/rdf+xml"))).hash, expected);
      });
    } finally {
      await service.close();
    }
  },
});
