/**
 * Language tags come back as written (docs/api.md, Items; issue 43): `"colour"@en-US` is
 * read back `en-US` in every read format and download, from `/sparql` (a literal, `lang()`,
 * a CONSTRUCT), while `langMatches`, `=` and a constant in a triple pattern still compare
 * tags case-insensitively, and the hash (RDFC-1.0, tags in lower case) is the same for
 * either spelling. On each store backend, reading the store itself (no item cache): the
 * embedded store keeps tags exactly; Fuseki (Jena) writes them in BCP 47's usual case
 * (`EN-us` back as `en-US`) and Virtuoso in lower case (docs/backends.md), which the suite
 * pins.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import type { Literal, Quad } from "n3";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { SPARQL_PROTOCOL_YAML } from "../support/sparql_protocol.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import type { RdfFormat } from "../../src/rdf/formats.ts";

const C = encodeURIComponent(DEMO_COLLECTION);
/** /sparql over the union of the items; no item cache, so every read is the store's. */
const YAML = SPARQL_PROTOCOL_YAML.replace(
  "  store:\n",
  "  store:\n    cache:\n      maxBytes: 0\n",
);
const DCT = "http://purl.org/dc/terms/";
/** The item's literals as written: value → tag. */
const WRITTEN: Record<string, string> = { colour: "en-US", Farbe: "de-CH", plain: "fr" };

/** value → tag of the literals of `quads`. */
function tags(quads: Quad[]): Record<string, string> {
  return Object.fromEntries(
    quads.filter((quad) => quad.object.termType === "Literal").map((quad) => [
      quad.object.value,
      (quad.object as Literal).language,
    ]),
  );
}

async function put(service: TestService, body: string, type: string): Promise<Response> {
  return await service.fetch(`/api/item?collection=${C}`, {
    method: "PUT",
    headers: { "Content-Type": type },
    body,
  });
}

async function sparql(service: TestService, query: string, accept: string): Promise<Response> {
  const response = await service.fetch(`/sparql?query=${encodeURIComponent(query)}`, {
    headers: { Accept: accept },
  });
  assert.equal(response.status, 200, `${query}: ${await response.clone().text()}`);
  return response;
}

type Binding = Record<string, { value: string; "xml:lang"?: string }>;

async function select(service: TestService, query: string): Promise<Binding[]> {
  const body = await (await sparql(service, query, "application/sparql-results+json")).json();
  return body.results.bindings;
}

/**
 * A tag in BCP 47's usual case (RFC 5646, 2.1.1), as Jena writes tags: the language in lower
 * case, a four-letter script in title case, a two-letter region in upper case.
 */
function bcp47Case(tag: string): string {
  return tag.split("-").map((subtag, i) =>
    i === 0
      ? subtag.toLowerCase()
      : subtag.length === 4
      ? subtag[0].toUpperCase() + subtag.slice(1).toLowerCase()
      : subtag.length === 2
      ? subtag.toUpperCase()
      : subtag.toLowerCase()
  ).join("-");
}

for (const backend of storeBackends({ allStores: true })) {
  // What the store gives back for a tag (docs/backends.md): the embedded store the tag as
  // written, Fuseki (Jena) in BCP 47's usual case, Virtuoso in lower case. The suite turns
  // the item cache off, so every read is the store's.
  const stored = (tag: string) =>
    backend.name === "embedded"
      ? tag
      : backend.name === "sparql"
      ? bcp47Case(tag)
      : tag.toLowerCase();
  const expected = (written: Record<string, string>) =>
    Object.fromEntries(Object.entries(written).map(([value, tag]) => [value, stored(tag)]));
  Deno.test({
    name: `[language tags/${backend.name}] tags come back as written; compared case-insensitively`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const service = await startTestService({ yaml: YAML, env: backend.env });
      try {
        const doc = uniqueItemUri("tags");
        const turtle = `<${doc}> <${DCT}title> "colour"@en-US, "Farbe"@de-CH ;
          <${DCT}description> "plain"@fr .`;
        const created = await put(service, turtle, "text/turtle");
        assert.equal(created.status, 201, await created.clone().text());
        const etag = created.headers.get("etag");

        await t.step("every read format and download keeps the tags", async () => {
          const reads: [string, RdfFormat, string][] = [
            ["application/ld+json", "jsonld", ""],
            ["application/rdf+json", "rdfjson", ""],
            ["text/turtle", "turtle", ".ttl"],
            ["application/n-triples", "ntriples", ".nt"],
            ["application/rdf+xml", "rdfxml", ".rdf"],
            ["text/n3", "n3", ".n3"],
          ];
          for (const [accept, format, extension] of reads) {
            const read = await service.fetch(`/api/item?${itemQuery(doc)}`, {
              headers: { Accept: accept },
            });
            const text = await read.text();
            assert.equal(read.status, 200, text);
            assert.deepEqual(tags((await parseRdf(text, format)).quads), expected(WRITTEN), accept);
            if (!extension) continue;
            const download = await service.fetch(`/api/item${extension}?${itemQuery(doc)}`);
            const file = await download.text();
            assert.equal(download.status, 200, file);
            assert.deepEqual(
              tags((await parseRdf(file, format)).quads),
              expected(WRITTEN),
              extension,
            );
          }
          const jsonld = await service.fetch(`/api/item.jsonld?${itemQuery(doc)}`);
          // A subject may be written as several node objects: their titles together.
          const nodes: Record<string, { "@language": string }[]>[] = await jsonld.json();
          assert.deepEqual(
            nodes.flatMap((node) => node[`${DCT}title`] ?? []).map((value) => value["@language"])
              .sort(),
            [stored("de-CH"), stored("en-US")],
          );
          const rdfJson = await (await service.fetch(`/api/item?${itemQuery(doc)}`, {
            headers: { Accept: "application/rdf+json" },
          })).json();
          assert.deepEqual(
            rdfJson[doc][`${DCT}title`].map((value: { lang: string }) => value.lang).sort(),
            [stored("de-CH"), stored("en-US")],
          );
        });

        await t.step("the hash is RDFC-1.0's: tags in lower case, either spelling", async () => {
          const hashOf = async (body: string) => {
            const response = await service.fetch(`/api/item/hash?collection=${C}`, {
              method: "POST",
              headers: { "Content-Type": "application/n-triples" },
              body,
            });
            assert.equal(response.status, 200, await response.clone().text());
            return (await response.json()).hash;
          };
          const triples = (colour: string, farbe: string) =>
            `<${doc}> <${DCT}title> "colour"@${colour} .\n` +
            `<${doc}> <${DCT}title> "Farbe"@${farbe} .\n` +
            `<${doc}> <${DCT}description> "plain"@fr .\n`;
          const lower = await hashOf(triples("en-us", "de-ch"));
          assert.equal(await hashOf(triples("en-US", "de-CH")), lower);
          assert.equal(await hashOf(triples("EN-us", "DE-ch")), lower);
          assert.equal(etag, `"${lower}"`);
          const read = await service.fetch(`/api/item?${itemQuery(doc)}`);
          assert.equal(read.headers.get("etag"), etag);
        });

        await t.step("/sparql: literals and lang() as written", async () => {
          // Compiled to SQL on the embedded store.
          const plain = await select(service, `SELECT ?o WHERE { <${doc}> <${DCT}title> ?o }`);
          assert.deepEqual(
            plain.map((row) => row.o["xml:lang"]).sort(),
            [stored("de-CH"), stored("en-US")],
          );
          // lang() in the projection and in a BIND: oxigraph's path on the embedded store.
          const langs = await select(
            service,
            `SELECT ?o (lang(?o) AS ?l) ?b WHERE { <${doc}> <${DCT}title> ?o BIND(LANG(?o) AS ?b) }`,
          );
          assert.deepEqual(
            langs.map((row) => [row.o["xml:lang"], row.l.value, row.b.value]).sort(),
            [
              [stored("de-CH"), stored("de-CH"), stored("de-CH")],
              [stored("en-US"), stored("en-US"), stored("en-US")],
            ],
          );
          const csv = await (await sparql(
            service,
            `SELECT (lang(?o) AS ?l) WHERE { <${doc}> <${DCT}title> "colour"@en-US, ?o }
`,
            "text/csv",
          )).text();
          const [header, ...lines] = csv.trimEnd().split("\r\n");
          assert.equal(header, "l");
          assert.deepEqual(lines.sort(), [stored("de-CH"), stored("en-US")]);
        });

        await t.step("/sparql: tags compare case-insensitively", async () => {
          const matched = await select(
            service,
            `SELECT ?o WHERE { <${doc}> <${DCT}title> ?o FILTER(langMatches(lang(?o), "EN-us")) }`,
          );
          assert.deepEqual(matched.map((row) => row.o.value), ["colour"]);
          const equal = await select(
            service,
            `SELECT ?o WHERE { <${doc}> <${DCT}title> ?o FILTER(?o = "colour"@EN-us) }`,
          );
          assert.deepEqual(equal.map((row) => [row.o.value, row.o["xml:lang"]]), [
            ["colour", stored("en-US")],
          ]);
          const ask = async (query: string) =>
            (await (await sparql(service, query, "application/sparql-results+json")).json())
              .boolean;
          // A constant in a triple pattern, in another case than stored.
          assert.equal(await ask(`ASK { <${doc}> <${DCT}title> "colour"@en-us }`), true);
          assert.equal(await ask(`ASK { <${doc}> <${DCT}title> "Farbe"@DE-CH }`), true);
          assert.equal(await ask(`ASK { <${doc}> <${DCT}title> "colour"@en }`), false);
          const sameTerm = await select(
            service,
            `SELECT ?o WHERE { <${doc}> <${DCT}title> ?o FILTER(sameTerm(?o, "colour"@en-us)) }`,
          );
          assert.deepEqual(sameTerm.map((row) => row.o.value), ["colour"]);
        });

        await t.step("/sparql: CONSTRUCT answers the tags as written", async () => {
          for (
            const query of [
              `CONSTRUCT WHERE { <${doc}> <${DCT}title> ?o }`,
              `CONSTRUCT { <${doc}> <${DCT}title> ?o } WHERE { ?s <${DCT}title> ?o FILTER(?s = <${doc}>) }`,
            ]
          ) {
            const text = await (await sparql(service, query, "application/n-triples")).text();
            const quads = (await parseRdf(text, "ntriples")).quads;
            assert.deepEqual(
              tags(quads),
              { colour: stored("en-US"), Farbe: stored("de-CH") },
              query,
            );
            assert.equal(quads.length, 2, query);
          }
        });

        await t.step("tags not in BCP 47's usual case", async () => {
          const uri = uniqueItemUri("tags-case");
          const response = await put(
            service,
            `<${uri}> <${DCT}title> "x"@EN-us, "y"@sr-latn-rs, "z"@DE .`,
            "text/turtle",
          );
          assert.equal(response.status, 201, await response.text());
          const read = await service.fetch(`/api/item.nt?${itemQuery(uri)}`);
          const got = tags((await parseRdf(await read.text(), "ntriples")).quads);
          const rows = await select(service, `SELECT ?o WHERE { <${uri}> <${DCT}title> ?o }`);
          const cases = { x: "EN-us", y: "sr-latn-rs", z: "DE" };
          assert.deepEqual(got, expected(cases));
          assert.deepEqual(
            Object.fromEntries(rows.map((row) => [row.o.value, row.o["xml:lang"]])),
            expected(cases),
          );
        });

        await t.step("RDF/XML and JSON-LD bodies keep their tags too", async () => {
          for (
            const [type, body] of [
              [
                "application/rdf+xml",
                (uri: string) =>
                  `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
                    xmlns:dct="${DCT}"><rdf:Description rdf:about="${uri}" xml:lang="en-US">
                    <dct:title>colour</dct:title><dct:title xml:lang="de-CH">Farbe</dct:title>
                    </rdf:Description></rdf:RDF>`,
              ],
              [
                "application/ld+json",
                (uri: string) =>
                  JSON.stringify({
                    "@context": { "@language": "en-US" },
                    "@id": uri,
                    [`${DCT}title`]: ["colour", { "@value": "Farbe", "@language": "de-CH" }],
                  }),
              ],
            ] as const
          ) {
            const uri = uniqueItemUri("tags-body");
            const response = await put(service, body(uri), type);
            assert.equal(response.status, 201, `${type}: ${await response.clone().text()}`);
            const read = await service.fetch(`/api/item.nt?${itemQuery(uri)}`);
            const quads = (await parseRdf(await read.text(), "ntriples")).quads;
            assert.deepEqual(tags(quads), expected({ colour: "en-US", Farbe: "de-CH" }), type);
          }
        });
      } finally {
        await service.close();
      }
    },
  });
}

// The validator reads the data through an N3.js Store, whose terms have N3.js's lower-cased
// `language`: SHACL's tag comparisons stay case-insensitive while the item keeps its spelling.
Deno.test({
  name: "[language tags/embedded] SHACL compares tags as RDF does: sh:uniqueLang, sh:languageIn",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    try {
      const collection = `https://data.example.org/collection/tags-${crypto.randomUUID()}`;
      const made = await service.fetch("/api/admin/collections", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          workspace: "https://data.example.org/workspace/demo",
          uri: collection,
          shapesTurtle: `@prefix sh: <http://www.w3.org/ns/shacl#> .
            <urn:shape> a sh:NodeShape ; sh:targetSubjectsOf <${DCT}title> ;
              sh:property [ sh:path <${DCT}title> ; sh:uniqueLang true ] ;
              sh:property [ sh:path <${DCT}description> ; sh:languageIn ("en") ] .`,
          index: { name: `tags-${crypto.randomUUID().slice(0, 8)}`, fields: [] },
        }),
      });
      assert.equal(made.status, 201, await made.text());
      const write = (body: string) =>
        service.fetch(`/api/item?collection=${encodeURIComponent(collection)}`, {
          method: "PUT",
          headers: { "Content-Type": "text/turtle" },
          body,
        });
      // en-US and en-us are one tag: two titles in it are not unique.
      const twice = await write(
        `<${uniqueItemUri()}> <${DCT}title> "colour"@en-US, "color"@en-us .`,
      );
      assert.equal(twice.status, 422, await twice.clone().text());
      assert.equal((await twice.json()).type, "/problems/shacl-violation");
      // EN-GB is in the language range en.
      const uri = uniqueItemUri();
      const ranged = await write(
        `<${uri}> <${DCT}title> "colour"@EN-GB ; <${DCT}description> "a colour"@EN-GB .`,
      );
      assert.equal(ranged.status, 201, await ranged.text());
      const read = await service.fetch(`/api/item.nt?${itemQuery(uri, collection)}`);
      assert.deepEqual(tags((await parseRdf(await read.text(), "ntriples")).quads), {
        colour: "EN-GB",
        "a colour": "EN-GB",
      });
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "[language tags/embedded] initialise: what a rule copies keeps the body's tag",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const collection = "https://data.example.org/collection/tags-init";
    const service = await startTestService({
      yaml: `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
workspaces:
  - uri: https://data.example.org/workspace/tags
    name: Tags
    collections:
      - uri: ${collection}
        name: Tags
        index: tags-init
        initialize:
          - name: label from the title
            construct: |
              CONSTRUCT { ?this <http://www.w3.org/2000/01/rdf-schema#label> ?t }
              WHERE { ?this <${DCT}title> ?t }
`,
    });
    try {
      const uri = uniqueItemUri("init");
      const response = await service.fetch(
        `/api/item/initialize?collection=${encodeURIComponent(collection)}&uri=${
          encodeURIComponent(uri)
        }`,
        {
          method: "POST",
          headers: { "Content-Type": "application/rdf+json" },
          body: JSON.stringify({
            [uri]: { [`${DCT}title`]: [{ type: "literal", value: "colour", lang: "en-US" }] },
          }),
        },
      );
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.deepEqual(body[uri]["http://www.w3.org/2000/01/rdf-schema#label"], [
        { type: "literal", value: "colour", lang: "en-US" },
      ]);
      assert.deepEqual(body[uri][`${DCT}title`], [
        { type: "literal", value: "colour", lang: "en-US" },
      ]);
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "[language tags/embedded] two spellings of one tag in a query's data: one answer",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ yaml: SPARQL_PROTOCOL_YAML });
    try {
      const doc = uniqueItemUri("spellings");
      const created = await put(
        service,
        `<${doc}> <${DCT}title> "colour"@en-us, "color"@en-US .`,
        "text/turtle",
      );
      assert.equal(created.status, 201, await created.text());
      // Item reads and the compiled path: each literal as stored.
      const read = await service.fetch(`/api/item.nt?${itemQuery(doc)}`);
      assert.deepEqual(tags((await parseRdf(await read.text(), "ntriples")).quads), {
        colour: "en-us",
        color: "en-US",
      });
      const compiled = await select(service, `SELECT ?o WHERE { <${doc}> <${DCT}title> ?o }`);
      assert.deepEqual(
        Object.fromEntries(compiled.map((row) => [row.o.value, row.o["xml:lang"]])),
        { colour: "en-us", color: "en-US" },
      );
      // oxigraph's path: one tag to RDF, answered in the spelling first in code point order.
      const fallback = await select(
        service,
        `SELECT ?o (lang(?o) AS ?l) WHERE { <${doc}> <${DCT}title> ?o FILTER(isLiteral(?o)) }`,
      );
      assert.deepEqual(
        fallback.map((row) => [row.o.value, row.o["xml:lang"], row.l.value]).sort(),
        [["color", "en-US", "en-US"], ["colour", "en-US", "en-US"]],
      );
    } finally {
      await service.close();
    }
  },
});
