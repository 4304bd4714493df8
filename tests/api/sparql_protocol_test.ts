/**
 * `/sparql` over real HTTP (docs/api.md, SPARQL endpoint): the SPARQL 1.1 Protocol's query
 * operation in its three request forms, the dataset parameters, every results format
 * re-parsed with a parser other than the writer (JSON.parse, CSV per RFC 4180, TSV terms
 * and RDF with n3, RDF/XML with oxigraph, JSON-LD with jsonld), 406, and the refusal of
 * updates, on each store backend.
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import jsonld from "jsonld";
import oxigraph from "oxigraph";
import {
  DEMO_COLLECTION,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { SPARQL_PROTOCOL_YAML } from "../support/sparql_protocol.ts";
import { expectProblem } from "../support/problems.ts";

const DCT = "http://purl.org/dc/terms/";
const EX = "https://example.org/protocol/";
const XSD = "http://www.w3.org/2001/XMLSchema#";

const YAML = SPARQL_PROTOCOL_YAML;

for (const backend of storeBackends({ allStores: true })) {
  Deno.test({
    name: `[sparql protocol/${backend.name}] query forms, formats, dataset, refusals`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const service = await startTestService({ yaml: YAML, env: backend.env });
      try {
        const item = uniqueItemUri("protocol");
        await createItem(service, item, `<${item}> <${DCT}title> "Tab\\there, \\"quoted\\""@en .`);
        const select = `SELECT ?title WHERE { <${item}> <${DCT}title> ?title }`;
        const construct = `CONSTRUCT WHERE { <${item}> <${DCT}title> ?o }`;

        await t.step("GET, POST sparql-query and POST form agree", async () => {
          const get = await service.fetch(`/sparql?query=${encodeURIComponent(select)}`);
          const direct = await service.fetch("/sparql", {
            method: "POST",
            headers: { "Content-Type": "application/sparql-query" },
            body: select,
          });
          const form = await service.fetch("/sparql", {
            method: "POST",
            body: new URLSearchParams({ query: select }),
          });
          for (const response of [get, direct, form]) {
            assert.equal(response.status, 200);
            assert.equal(response.headers.get("content-type"), "application/sparql-results+json");
            const body = await response.json();
            assert.deepEqual(body.head.vars, ["title"]);
            assert.deepEqual(body.results.bindings, [
              { title: { type: "literal", value: 'Tab\there, "quoted"', "xml:lang": "en" } },
            ]);
          }
        });

        await t.step("columns come in the query's order, SELECT * included", async () => {
          const star = `SELECT * WHERE { ?zed <${DCT}title> ?apple . BIND(STR(?apple) AS ?mid) ` +
            `FILTER(?zed = <${item}>) }`;
          assert.deepEqual(
            (await (await get(service, star, "application/json")).json()).head.vars,
            [
              "zed",
              "apple",
              "mid",
            ],
          );
          const named =
            `SELECT ?zed (STR(?apple) AS ?b) ?apple WHERE { ?zed <${DCT}title> ?apple ` +
            `FILTER(?zed = <${item}>) }`;
          const csv = await (await get(service, named, "text/csv")).text();
          assert.equal(csv.split("\r\n")[0], "zed,b,apple");
        });

        await t.step("CSV and TSV re-parse to the same value", async () => {
          const csv = await (await get(service, select, "text/csv")).text();
          assert.equal(csv, 'title\r\n"Tab\there, ""quoted"""\r\n');
          const tsv = await (await get(service, select, "text/tab-separated-values")).text();
          const [header, row] = tsv.split("\n");
          assert.equal(header, "?title");
          const [quad] = new Parser().parse(`<urn:s> <urn:p> ${row} .`);
          assert.equal(quad.object.value, 'Tab\there, "quoted"');
          assert.equal((quad.object as { language: string }).language, "en");
        });

        await t.step("ASK in every results format", async () => {
          const ask = `ASK { <${item}> ?p ?o }`;
          assert.deepEqual(await (await get(service, ask, "application/json")).json(), {
            head: {},
            boolean: true,
          });
          const xml = await (await get(service, ask, "application/sparql-results+xml")).text();
          assert.match(xml, /<boolean>true<\/boolean>/);
          assert.equal(
            await (await get(service, ask, "text/csv")).text(),
            "_askResult\r\ntrue\r\n",
          );
        });

        await t.step("CONSTRUCT in Turtle, N-Triples, RDF/XML and JSON-LD", async () => {
          const expected = [`${item} ${DCT}title Tab\there, "quoted"`];
          const triples = (
            quads: {
              subject: { value: string };
              predicate: { value: string };
              object: { value: string };
            }[],
          ) => quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`);
          const turtle = await (await get(service, construct, "text/turtle")).text();
          assert.deepEqual(triples(new Parser().parse(turtle)), expected);
          const nt = await (await get(service, construct, "application/n-triples")).text();
          assert.deepEqual(triples(new Parser({ format: "N-Triples" }).parse(nt)), expected);
          const rdfxml = await (await get(service, construct, "application/rdf+xml")).text();
          const store = new oxigraph.Store();
          store.load(rdfxml, { format: "application/rdf+xml" });
          assert.deepEqual(triples(store.match()), expected);
          const json = await (await get(service, construct, "application/ld+json")).json();
          const nquads = await jsonld.toRDF(json, { format: "application/n-quads" }) as string;
          assert.deepEqual(triples(new Parser({ format: "N-Quads" }).parse(nquads)), expected);
        });

        await t.step("406 for an Accept nothing can answer", async () => {
          await expectProblem(await get(service, select, "image/png"), 406, "not-acceptable");
          await expectProblem(await get(service, construct, "text/csv"), 406, "not-acceptable");
        });

        await t.step({
          name: "default-graph-uri and named-graph-uri are honoured",
          fn: async () => {
            const graph = await itemGraph(service, item);
            const inGraph = await service.fetch(
              `/sparql?query=${encodeURIComponent(select)}&default-graph-uri=${
                encodeURIComponent(graph)
              }`,
            );
            assert.equal((await inGraph.json()).results.bindings.length, 1);
            const elsewhere = await service.fetch(
              `/sparql?query=${encodeURIComponent(select)}&default-graph-uri=urn:x:none`,
            );
            assert.equal((await elsewhere.json()).results.bindings.length, 0);
            const named = await service.fetch("/sparql", {
              method: "POST",
              body: new URLSearchParams({
                query: `SELECT ?g { GRAPH ?g { ?s ?p ?o } }`,
                "named-graph-uri": graph,
              }),
            });
            const names = (await named.json()).results.bindings.map((b: { g: { value: string } }) =>
              b.g.value
            );
            assert.deepEqual([...new Set(names)], [graph]);
          },
        });

        // Each constant below is stored as written; sparqljs reads `+5` as "5", `1.0E0` as
        // "1.0e0" and `x:a\.b` as "…a\.b", none of which is stored.
        const numbers = uniqueItemUri("protocol-numbers");
        await createItem(
          service,
          numbers,
          `<${numbers}> <${EX}n> +5, 1.0E0, .5, "01"^^<${XSD}integer>, <urn:x:a.b> ; ` +
            `<${EX}has> [ <${EX}name> "inner" ] .`,
        );

        await t.step("a constant is matched as written (+5, 1.0E0, .5, 01, x:a\\.b)", async () => {
          const matches = [
            // Compiled to SQL, the text rewritten by the row cap.
            `SELECT ?p WHERE { <${numbers}> ?p +5 }`,
            `SELECT ?p WHERE { <${numbers}> ?p 1.0E0 }`,
            `SELECT ?p WHERE { <${numbers}> ?p .5 }`,
            `SELECT ?p WHERE { <${numbers}> ?p "01"^^<${XSD}integer> }`,
            `PREFIX x: <urn:x:> SELECT ?p WHERE { <${numbers}> ?p x:a\\.b }`,
            // Within the row cap: the text is run as sent.
            `SELECT ?p WHERE { <${numbers}> ?p +5 } LIMIT 1`,
            // The fallback engine, over the quads the constant selects.
            `SELECT ?p WHERE { <${numbers}> ?p +5 FILTER(true) }`,
            `SELECT ?p WHERE { VALUES ?o { +5 } <${numbers}> ?p ?o }`,
          ];
          for (const query of matches) {
            assert.equal((await bindings(service, query)).length, 1, query);
          }
          const ask = await get(service, `ASK { <${numbers}> ?p 1.0E0 }`, "application/json");
          assert.equal((await ask.json()).boolean, true);
        });

        await t.step("the row cap's rewrite keeps HAVING, GROUP BY, subqueries, IN", async () => {
          const pattern = `<${numbers}> <${EX}n> ?o`;
          const counted = `SELECT ?p (COUNT(*) AS ?n) WHERE { <${numbers}> ?p ?o ` +
            `FILTER(?p = <${EX}n>) } GROUP BY ?p`;
          // Virtuoso stores numbers as values: 1.0E0 and "01" are then one triple.
          const total = (await bindings(service, `SELECT ?o WHERE { ${pattern} }`)).length;
          assert.ok(total === 5 || total === 4, `${total} values`);
          const five = await bindings(service, `${counted} HAVING (COUNT(*) > 1) (COUNT(*) < 9)`);
          assert.deepEqual(five.map((row) => row.n.value), [String(total)]);
          // The second condition holds too.
          assert.deepEqual(
            await bindings(service, `${counted} HAVING (COUNT(*) > 1) (COUNT(*) < 3)`),
            [],
          );
          const kinds = await bindings(
            service,
            `SELECT ?iri (COUNT(*) AS ?n) WHERE { ${pattern} } GROUP BY (isIRI(?o) AS ?iri)`,
          );
          assert.deepEqual(
            // Virtuoso writes the boolean as 1 or 0.
            kinds.map((row) => `${["true", "1"].includes(row.iri.value)}:${row.n.value}`).sort(),
            [`false:${total - 1}`, "true:1"],
          );
          const sub = `SELECT * WHERE { { SELECT ?o WHERE { ${pattern} } LIMIT 2 } }`;
          assert.equal((await bindings(service, sub)).length, 2);
          // (true || false) IN (false) is false; true || (false IN (false)) would be true.
          const bracketed = `SELECT ?o WHERE { ${pattern} FILTER((true || false) IN (false)) }`;
          assert.deepEqual(await bindings(service, bracketed), []);
        });

        await t.step("CSV and TSV write a blank node as _:label", async () => {
          const query =
            `SELECT ?b ?name WHERE { <${numbers}> <${EX}has> ?b . ?b <${EX}name> ?name }`;
          const csv = (await (await get(service, query, "text/csv")).text()).split("\r\n");
          assert.equal(csv[0], "b,name");
          assert.match(csv[1], /^_:[^,]+,inner$/);
          const tsv = (await (await get(service, query, "text/tab-separated-values")).text())
            .split("\n");
          assert.match(tsv[1], /^_:\S+\t"inner"$/);
        });

        await t.step(
          "SELECT * columns in the order of first appearance: GRAPH, VALUES",
          async () => {
            const vars = async (query: string) =>
              (await (await get(service, query, "application/json")).json()).head.vars;
            assert.deepEqual(
              await vars(`SELECT * WHERE { GRAPH ?g { <${numbers}> ?p ?o } }`),
              ["g", "p", "o"],
            );
            assert.deepEqual(
              await vars(`SELECT * WHERE { VALUES ?v { 1 } <${numbers}> <${EX}n> ?o }`),
              ["v", "o"],
            );
          },
        );

        await t.step("updates are refused and change nothing", async () => {
          const insert = `INSERT DATA { <${item}> <${DCT}title> "changed" }`;
          await expectProblem(
            await service.fetch(`/sparql?query=${encodeURIComponent(insert)}`),
            400,
            "sparql-update-refused",
          );
          await expectProblem(
            await service.fetch(`/sparql?update=${encodeURIComponent(insert)}`),
            400,
            "sparql-update-refused",
          );
          await expectProblem(
            await service.fetch("/sparql", {
              method: "POST",
              headers: { "Content-Type": "application/sparql-update" },
              body: insert,
            }),
            400,
            "sparql-update-refused",
          );
          await expectProblem(
            await service.fetch("/sparql", {
              method: "POST",
              body: new URLSearchParams({ update: insert }),
            }),
            400,
            "sparql-update-refused",
          );
          const after = await (await get(service, select)).json();
          assert.equal(after.results.bindings.length, 1);
        });

        await t.step("a syntax error names its position", async () => {
          const problem = await expectProblem(
            await get(service, "SELECT * WHERE { ?s ?p }"),
            400,
            "invalid-sparql",
          );
          assert.match(String(problem.detail), /line 1, column/);
        });

        await t.step("/sparql/{id}: unknown ids are 404", async () => {
          await expectProblem(
            await service.fetch(`/sparql/nope?query=${encodeURIComponent(select)}`),
            404,
            "endpoint-not-found",
          );
        });
      } finally {
        await service.close();
      }
    },
  });
}

/**
 * The name of the item's graph. The SPARQL store's default graph (`queryDefaultGraph`)
 * leaves no named graphs to find it with `GRAPH ?g` (docs/api.md, SPARQL endpoint); its
 * graphs are named by `graphTemplate`.
 */
async function itemGraph(service: TestService, item: string): Promise<string> {
  const { backend, sparql } = service.config.service.store;
  if (backend === "sparql") return sparql.graphTemplate.replaceAll("{item}", item);
  const graphs = await (await get(service, `SELECT ?g { GRAPH ?g { <${item}> ?p ?o } }`)).json();
  return graphs.results.bindings[0].g.value;
}

/** A SELECT's rows as SPARQL results JSON bindings; fails on any status but 200. */
async function bindings(
  service: TestService,
  sparql: string,
): Promise<Record<string, { value: string }>[]> {
  const response = await get(service, sparql, "application/json");
  const body = await response.text();
  assert.equal(response.status, 200, `${sparql}: ${body}`);
  return JSON.parse(body).results.bindings;
}

function get(service: TestService, sparql: string, accept?: string): Promise<Response> {
  return service.fetch(`/sparql?query=${encodeURIComponent(sparql)}`, {
    headers: accept ? { Accept: accept } : {},
  });
}

async function createItem(service: TestService, uri: string, turtle: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}
