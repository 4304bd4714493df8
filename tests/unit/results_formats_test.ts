/**
 * `Accept` negotiation of SPARQL results formats: the same rules as RDF formats (weight, then
 * the most specific range, then the client's order), so a format refused by name with `q=0`
 * is not brought back by a wildcard. How CSV and TSV write each kind of term.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import type { Term } from "n3";
import {
  negotiateResultsFormat,
  type ResultsFormat,
  writeBindings,
} from "../../src/sparql_protocol/results_formats.ts";
import { negotiateFormat } from "../../src/rdf/formats.ts";

Deno.test("no header, an empty one or */* answers JSON", () => {
  assert.equal(negotiateResultsFormat(undefined), "json");
  assert.equal(negotiateResultsFormat(""), "json");
  assert.equal(negotiateResultsFormat("*/*"), "json");
});

Deno.test("a format refused by name stays refused under a wildcard", () => {
  const accept = "*/*, application/sparql-results+json;q=0";
  assert.notEqual(negotiateResultsFormat(accept), "json");
  assert.equal(negotiateResultsFormat(accept), "xml");
  // RDF formats answer the same header the same way.
  assert.notEqual(
    negotiateFormat("*/*, text/turtle;q=0", ["turtle", "ntriples"], "turtle"),
    "turtle",
  );
  assert.equal(negotiateResultsFormat("text/*, text/csv;q=0"), "tsv");
  assert.equal(negotiateResultsFormat("application/sparql-results+json;q=0"), undefined);
});

Deno.test("the highest weight wins, then the more specific range, then the client's order", () => {
  assert.equal(negotiateResultsFormat("text/csv;q=0.5, text/tab-separated-values"), "tsv");
  assert.equal(negotiateResultsFormat("*/*, text/csv"), "csv");
  assert.equal(negotiateResultsFormat("text/csv, text/tab-separated-values"), "csv");
  assert.equal(negotiateResultsFormat("application/xml, application/json"), "xml");
  assert.equal(negotiateResultsFormat("text/*"), "csv");
  assert.equal(negotiateResultsFormat("image/png"), undefined);
});

Deno.test("CSV and TSV write a blank node as _:label, an unbound variable as nothing", async () => {
  const row = new Map<string, Term>([
    ["b", DataFactory.blankNode("b0")],
    ["i", DataFactory.namedNode("urn:x:a")],
    ["l", DataFactory.literal("a,b")],
  ]);
  const written = (format: ResultsFormat) =>
    new Response(writeBindings(format, ["b", "i", "l", "u"], [row])).text();
  assert.equal(await written("csv"), 'b,i,l,u\r\n_:b0,urn:x:a,"a,b",\r\n');
  assert.equal(await written("tsv"), '?b\t?i\t?l\t?u\n_:b0\t<urn:x:a>\t"a,b"\t\n');
});

Deno.test("TSV writes numbers whose form is a Turtle number bare, others in full", async () => {
  const XSD = "http://www.w3.org/2001/XMLSchema#";
  const number = (value: string, type: string) =>
    DataFactory.literal(value, DataFactory.namedNode(XSD + type));
  const values = [
    number("4", "integer"),
    number("5.5", "decimal"),
    number("1.0e6", "double"),
    number("-3", "negativeInteger"),
    number("INF", "double"),
    number("5.", "decimal"),
  ];
  const rows = values.map((value) => new Map<string, Term>([["v", value]]));
  const text = await new Response(writeBindings("tsv", ["v"], rows)).text();
  assert.equal(
    text,
    `?v\n4\n5.5\n1.0e6\n"-3"^^<${XSD}negativeInteger>\n"INF"^^<${XSD}double>\n` +
      `"5."^^<${XSD}decimal>\n`,
  );
});
