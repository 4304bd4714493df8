import { strict as assert } from "node:assert";
import { assignLocalNames, localNameOf } from "../../src/rdf/shacl/local_names.ts";

Deno.test("localNameOf takes the segment after the last # or /", () => {
  assert.equal(localNameOf("http://schema.org/Person"), "Person");
  assert.equal(localNameOf("http://www.w3.org/2001/XMLSchema#dateTime"), "dateTime");
  assert.equal(localNameOf("http://example.org/things/Book/"), "Book");
  assert.equal(localNameOf("urn:example:Thing"), "Thing");
});

Deno.test("localNameOf decodes percent-encoding and replaces what cannot sit in an IRI path", () => {
  assert.equal(localNameOf("http://example.org/caf%C3%A9"), "café");
  assert.equal(localNameOf("http://example.org/has%20part"), "has_part");
  assert.equal(localNameOf("http://example.org/lookup?id=1"), "lookup_id_1");
  assert.equal(localNameOf("http://example.org/bad%E0%A4"), "bad_E0_A4");
  assert.equal(localNameOf("http://example.org/%%%"), "resource");
});

Deno.test("assignLocalNames suffixes clashes by IRI order, whatever the input order", () => {
  const iris = [
    "http://xmlns.com/foaf/0.1/name",
    "http://schema.org/name",
    "http://example.org/age",
    "http://a.example/name",
  ];
  const expected = new Map([
    ["http://a.example/name", "name"],
    ["http://example.org/age", "age"],
    ["http://schema.org/name", "name_2"],
    ["http://xmlns.com/foaf/0.1/name", "name_3"],
  ]);
  assert.deepEqual(assignLocalNames(iris), expected);
  assert.deepEqual(assignLocalNames([...iris].reverse()), expected);
});

Deno.test("assignLocalNames lets a natural name_2 keep its name and skips reserved names", () => {
  const names = assignLocalNames([
    "http://b.example/name",
    "http://a.example/name",
    "http://c.example/name_2",
    "http://a.example/IRI",
  ], ["IRI"]);
  assert.equal(names.get("http://a.example/name"), "name");
  assert.equal(names.get("http://c.example/name_2"), "name_2");
  assert.equal(names.get("http://b.example/name"), "name_3");
  assert.equal(names.get("http://a.example/IRI"), "IRI_2");
});
