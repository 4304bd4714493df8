/**
 * SPARQL results XML as written by the service, read back by an XML parser of the tests' own
 * (xmldom): every term comes back as it was, whitespace included.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { DataFactory, type Term } from "n3";
import { writeBindings } from "../../src/sparql_protocol/results_formats.ts";
import { parseXmlResults } from "../support/sparql_result_documents.ts";

Deno.test("XML results keep a literal's carriage returns, tabs and line feeds", async () => {
  const terms: Term[] = [
    DataFactory.literal("a\rb\r\nc\nd\te"),
    DataFactory.literal(" \r ", "en"),
    DataFactory.literal("<&>\"'", DataFactory.namedNode("urn:x:type")),
    DataFactory.namedNode("urn:x:a?b=1&c=2"),
    DataFactory.blankNode("b0"),
  ];
  const rows = terms.map((term) => new Map([["v", term]]));
  const written = await new Response(writeBindings("xml", ["v"], rows)).text();
  const read = parseXmlResults(written);
  assert.equal(read.kind, "bindings");
  if (read.kind !== "bindings") return;
  assert.deepEqual(read.variables, ["v"]);
  assert.equal(read.rows.length, terms.length);
  read.rows.forEach((row, i) => assert.ok(row.get("v")!.equals(terms[i]), `term ${i}`));
});
