/**
 * The pure parts behind the workbench's reading of RDF: a SELECT's column order, prefixed
 * names in search filters, the fields a collection declares, label choice by language, and
 * the prefixes a download declares.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import { DataFactory } from "n3";
import { inQueryOrder, projectionOrder } from "../../src/sparql_protocol/projection_order.ts";
import { expandFilter, expandPrefixedName } from "../../src/search/prefixed_names.ts";
import { prefixesOf } from "../../src/fields/field_paths.ts";
import { declaredFields } from "../../src/search/field_check.ts";
import { chooseLabel, languagesOf } from "../../src/rdf/labels.ts";
import { prefixesUsedBy } from "../../src/rdf/writers/prefix_choice.ts";

const parse = (text: string) => new sparqljs.Parser().parse(text);

Deno.test("a SELECT's columns in the query's order", () => {
  assert.deepEqual(projectionOrder(parse("SELECT * { ?z ?a ?m OPTIONAL { ?b ?z ?q } }")), [
    "z",
    "a",
    "m",
    "b",
    "q",
  ]);
  assert.deepEqual(projectionOrder(parse("SELECT ?b (STR(?a) AS ?x) ?a { ?a ?b ?c }")), [
    "b",
    "x",
    "a",
  ]);
  assert.deepEqual(projectionOrder(parse("ASK { ?s ?p ?o }")), []);
  // Names the query does not order keep the engine's order, after the others.
  assert.deepEqual(inQueryOrder(["a", "m", "z", "extra"], ["z", "a", "m"]), [
    "z",
    "a",
    "m",
    "extra",
  ]);
});

Deno.test("prefixed names expand on IRI fields for known prefixes only", () => {
  const prefixes = prefixesOf({ ex: "https://example.org/v#", name: "https://schema.org/name" });
  assert.equal(
    expandPrefixedName("rdfs:Class", prefixes),
    "http://www.w3.org/2000/01/rdf-schema#Class",
  );
  assert.equal(expandPrefixedName("schema:Person", prefixes), "http://schema.org/Person");
  assert.equal(expandPrefixedName("ex:Thing", prefixes), "https://example.org/v#Thing");
  for (const unchanged of ["http://x.org/a", "urn:isbn:1", "nope:x", "toString:x", "plain"]) {
    assert.equal(expandPrefixedName(unchanged, prefixes), unchanged);
  }
  assert.deepEqual(expandFilter({ field: "title", value: "rdfs:Class" }, prefixes), {
    field: "title",
    value: "rdfs:Class",
  });
});

Deno.test("declared fields: the service's, configured ones, mappings and context terms", () => {
  const declared = declaredFields(
    {
      collection: "urn:c",
      indexName: "c",
      mappings: { properties: { year: { type: "integer" } } },
    },
    [{ name: "subject" }],
    { "@context": { title: "http://purl.org/dc/terms/title", "@vocab": "urn:v#" } },
  );
  for (const field of ["uri", "types", "text_de", "linkedItems", "year", "subject", "title"]) {
    assert.ok(declared.has(field), field);
  }
  assert.ok(!declared.has("@vocab"));
  assert.ok(!declared.has("nosuchfield"));
});

Deno.test("labels: the reader's language first, then untagged, English, any", () => {
  assert.deepEqual(languagesOf("fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5, de;q=0"), [
    "fr-ch",
    "fr",
    "en",
  ]);
  const label = "http://www.w3.org/2000/01/rdf-schema#label";
  const pref = "http://www.w3.org/2004/02/skos/core#prefLabel";
  const candidates = [
    { property: label, value: "House", language: "en" },
    { property: label, value: "Haus", language: "de" },
    { property: pref, value: "Maison", language: "fr" },
    { property: label, value: "untagged", language: "" },
  ];
  assert.equal(chooseLabel(candidates, ["de-at"])?.value, "Haus");
  assert.equal(chooseLabel(candidates, ["fr"])?.value, "Maison");
  assert.equal(chooseLabel(candidates, ["it"])?.value, "untagged");
  assert.equal(chooseLabel(candidates.slice(0, 3), ["it"])?.value, "House");
  assert.equal(chooseLabel([{ property: label, value: " ", language: "" }], []), undefined);
  // In one language, skos:prefLabel before rdfs:label.
  assert.equal(
    chooseLabel([
      { property: label, value: "b", language: "en" },
      { property: pref, value: "a", language: "en" },
    ], ["en"])?.property,
    pref,
  );
});

Deno.test("a download declares the known prefixes its graph uses, one name a namespace", () => {
  const { namedNode, literal, quad } = DataFactory;
  const used = prefixesUsedBy(
    [
      quad(
        namedNode("http://schema.org/x"),
        namedNode("http://purl.org/dc/terms/date"),
        literal("2020", namedNode("http://www.w3.org/2001/XMLSchema#gYear")),
      ),
    ],
    { ...prefixesOf(undefined), "bad name": "http://schema.org/", empty: "http://schema.org/x" },
  );
  assert.deepEqual(used, {
    schema: "http://schema.org/",
    dct: "http://purl.org/dc/terms/",
    xsd: "http://www.w3.org/2001/XMLSchema#",
  });
});
