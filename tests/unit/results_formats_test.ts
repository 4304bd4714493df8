/**
 * `Accept` negotiation of SPARQL results formats: the same rules as RDF formats (weight, then
 * the most specific range, then the client's order), so a format refused by name with `q=0`
 * is not brought back by a wildcard.
 */
import { strict as assert } from "node:assert";
import { negotiateResultsFormat } from "../../src/sparql_protocol/results_formats.ts";
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
