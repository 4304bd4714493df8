/**
 * Initialise over HTTP: rules with forType, several URIs, `from: store`, idempotence, the
 * 400 cases, and IRIs crafted to break out of the query.
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import type { Quad } from "n3";
import jsonld from "jsonld";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";

const COLLECTION = "https://data.example.org/collection/init";
const C = encodeURIComponent(COLLECTION);
import { STORE_YAML } from "../support/backends.ts";
const EX = "http://example.org/";

const YAML = `
service:
  http:
    port: \${SERVICE_HTTP_PORT:0}
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}workspaces:
  - uri: https://data.example.org/workspace/init
    name: Init
    initialize:
      - name: workspace marker
        construct: |
          CONSTRUCT { ?this <${EX}inWorkspace> "yes" } WHERE { }
    collections:
      - uri: ${COLLECTION}
        name: Init
        index: init
        initialize:
          - name: status for documents
            forType: ${EX}Document
            construct: |
              CONSTRUCT { ?this <${EX}status> "draft" }
              WHERE { FILTER NOT EXISTS { ?this <${EX}status> ?any } }
          - name: marker seen by a later rule
            construct: |
              CONSTRUCT { ?this <${EX}checked> ?marker }
              WHERE { ?this <${EX}inWorkspace> ?marker }
          - name: siblings in the store
            from: store
            construct: |
              CONSTRUCT { ?this <${EX}sibling> ?other }
              WHERE { ?this <${EX}topic> ?t . ?other <${EX}topic> ?t . FILTER(?other != ?this) }
`;

function nquadsToJsonLd(text: string) {
  return jsonld.fromRDF(text, { format: "application/n-quads" });
}

async function initialize(service: TestService, uris: string[], body: unknown) {
  const query = uris.map((uri) => `uri=${encodeURIComponent(uri)}`).join("&");
  return await service.fetch(`/api/item/initialize?collection=${C}&${query}`, {
    method: "POST",
    headers: { "Content-Type": "application/ld+json" },
    body: JSON.stringify(body),
  });
}

async function quadsOf(response: Response): Promise<Quad[]> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const nquads = await jsonld.toRDF(JSON.parse(text), { format: "application/n-quads" });
  return new Parser({ format: "N-Quads" }).parse(nquads as string);
}

function has(quads: Quad[], s: string, p: string, o?: string): boolean {
  return quads.some((q) =>
    q.subject.value === s && q.predicate.value === p && (o === undefined || q.object.value === o)
  );
}

for (const backend of storeBackends({ allStores: true })) {
  Deno.test({
    name: `[initialize/${backend.name}] rules, forType, several URIs, from: store, idempotence`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({ yaml: YAML, env: backend.env });
      try {
        const stamp = crypto.randomUUID();
        const doc = `${EX}doc/${stamp}`;
        const note = `${EX}note/${stamp}`;
        const stored = `${EX}stored/${stamp}`;
        const topic = `${EX}topic/${stamp}`;
        const created = await service.fetch(`/api/item?collection=${C}`, {
          method: "PUT",
          headers: { "Content-Type": "text/turtle" },
          body: `<${stored}> <${EX}topic> <${topic}> .`,
        });
        assert.equal(created.status, 201, await created.text());

        const body = await nquadsToJsonLd(
          `<${doc}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${EX}Document> .\n` +
            `<${doc}> <${EX}topic> <${topic}> .\n<${note}> <${EX}about> <${doc}> .\n` +
            `<${doc}> <${EX}count> "007"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`,
        );
        const first = await quadsOf(await initialize(service, [doc, note], body));
        assert.ok(has(first, doc, `${EX}status`, "draft"), "forType rule applies to the document");
        assert.ok(!has(first, note, `${EX}status`), "forType rule skips the untyped note");
        assert.ok(has(first, doc, `${EX}inWorkspace`, "yes"), "workspace rules run");
        assert.ok(has(first, note, `${EX}inWorkspace`, "yes"), "for every listed URI");
        assert.ok(has(first, doc, `${EX}checked`, "yes"), "a later rule sees earlier results");
        assert.ok(has(first, doc, `${EX}sibling`, stored), "from: store sees stored items");
        assert.ok(!has(first, stored, `${EX}topic`), "stored data is not copied into the answer");
        assert.ok(has(first, note, `${EX}about`, doc), "nothing is removed");
        assert.ok(has(first, doc, `${EX}count`, "007"), "literals keep their spelling");

        const again = await quadsOf(
          await initialize(service, [doc, note], await jsonld.fromRDF(first)),
        );
        assert.equal((await canonicalHash(again)).hash, (await canonicalHash(first)).hash);

        const rdfJson = await service.fetch(
          `/api/item/initialize?collection=${C}&uri=${encodeURIComponent(doc)}`,
          {
            method: "POST",
            headers: { "Content-Type": "application/rdf+json" },
            body: JSON.stringify({ [doc]: { [`${EX}topic`]: [{ type: "uri", value: topic }] } }),
          },
        );
        assert.match(rdfJson.headers.get("content-type") ?? "", /application\/rdf\+json/);
        const answer = await rdfJson.json();
        assert.deepEqual(answer[doc][`${EX}inWorkspace`], [{ type: "literal", value: "yes" }]);
      } finally {
        await service.close();
      }
    },
  });
}

Deno.test({
  name: "initialise refuses absent URIs, missing parameters and crafted IRIs",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ yaml: YAML });
    try {
      const doc = `${EX}doc/x`;
      const body = { "@id": doc, [`${EX}title`]: "t" };
      const absent = await expectProblem(
        await initialize(service, [doc, `${EX}doc/absent`], body),
        400,
        "uri-not-in-body",
      );
      assert.match(String(absent.detail), /doc\/absent/);
      await expectProblem(await initialize(service, [], body), 400, "missing-parameter");
      for (
        const crafted of [
          `${EX}a> } ; DROP ALL ; SELECT * { <${EX}b`,
          `${EX}a>}DELETE{?s ?p ?o}WHERE{?s ?p ?o`,
          `${EX}a}`,
          `${EX}a\nb`,
        ]
      ) {
        await expectProblem(await initialize(service, [crafted], body), 400, "invalid-iri");
      }
      // A legal IRI that spells SPARQL keywords is bound as a term and does no harm.
      const keywordIri = `${EX}DELETE%20WHERE/INSERT`;
      const harmless = await quadsOf(
        await initialize(service, [keywordIri], { "@id": keywordIri, [`${EX}title`]: "k" }),
      );
      assert.ok(has(harmless, keywordIri, `${EX}inWorkspace`, "yes"));
      await expectProblem(
        await service.fetch(
          `/api/item/initialize?collection=${encodeURIComponent("https://no.example/c")}&uri=${
            encodeURIComponent(doc)
          }`,
          { method: "POST", headers: { "Content-Type": "application/ld+json" }, body: "{}" },
        ),
        404,
        "collection-not-found",
      );
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "the shipped demo rules add a date, an identifier and an English label, once",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    try {
      const doc = "https://data.example.org/id/document/demo-1";
      const collection = encodeURIComponent("https://data.example.org/collection/documents");
      const run = async (body: unknown) =>
        await quadsOf(
          await service.fetch(
            `/api/item/initialize?collection=${collection}&uri=${encodeURIComponent(doc)}`,
            {
              method: "POST",
              headers: { "Content-Type": "application/ld+json" },
              body: JSON.stringify(body),
            },
          ),
        );
      const first = await run({
        "@id": doc,
        "@type": "http://xmlns.com/foaf/0.1/Document",
        "http://purl.org/dc/terms/title": "Draft",
      });
      const dct = "http://purl.org/dc/terms/";
      assert.ok(has(first, doc, `${dct}created`));
      assert.ok(has(first, doc, `${dct}identifier`, "demo-1"));
      const label = first.find((q) => q.predicate.value.endsWith("#label"));
      assert.equal(label?.object.value, "Draft");
      assert.equal((label?.object as { language: string }).language, "en");
      const second = await run(await jsonld.fromRDF(first));
      assert.equal((await canonicalHash(second)).hash, (await canonicalHash(first)).hash);
    } finally {
      await service.close();
    }
  },
});
