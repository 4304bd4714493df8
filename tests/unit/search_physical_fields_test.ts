/**
 * The OpenSearch layout of search documents (src/search_opensearch/physical_fields.ts): object
 * values beside scalar ones under `<field>@node`, logical paths translated, names that read
 * like a sibling escaped, and the way back to the document the service built.
 */
import { strict as assert } from "node:assert";
import {
  logicalDocument,
  physicalDocument,
  physicalPath,
  physicalProperties,
} from "../../src/search_opensearch/physical_fields.ts";
import { mergedMappings } from "../../src/search_opensearch/mappings.ts";
import type { SearchDocument } from "../../src/search/search_engine.ts";

const BASE: SearchDocument = {
  uri: "urn:x:1",
  collection: "c",
  workspace: "w",
  types: ["urn:T"],
  hash: "h",
  modified: "2025-01-01T00:00:00.000Z",
  text: "words",
};

Deno.test("physicalPath: each step into an object goes to its sibling", () => {
  assert.equal(physicalPath("range"), "range");
  assert.equal(physicalPath("author.name"), "author@node.name");
  assert.equal(physicalPath("range.unionOf.rest.first"), "range@node.unionOf@node.rest@node.first");
  // The service's own object keeps its layout.
  assert.equal(physicalPath("sortLabel.en"), "sortLabel.en");
});

Deno.test("physicalDocument: scalars and objects of a field never share a name", () => {
  const document: SearchDocument = {
    ...BASE,
    range: ["urn:C", { unionOf: { first: "urn:A", rest: { first: "urn:B" } } }],
    author: { name: "Ada", knows: ["urn:P", { name: "Bob" }] },
    year: 1999,
    tags: ["a", "b"],
    sortLabel: { any: "x", en: "x" },
  };
  const physical = physicalDocument(document);
  assert.deepEqual(physical, {
    ...BASE,
    range: ["urn:C"],
    "range@node": [{ "unionOf@node": { first: "urn:A", "rest@node": { first: "urn:B" } } }],
    "author@node": { name: "Ada", knows: ["urn:P"], "knows@node": [{ name: "Bob" }] },
    year: 1999,
    tags: ["a", "b"],
    sortLabel: { any: "x", en: "x" },
  });
  assert.deepEqual(logicalDocument(physical), document);
});

Deno.test("logicalDocument: a source of an earlier layout is already logical", () => {
  const document: SearchDocument = { ...BASE, author: { name: "Ada" }, year: 1999 };
  assert.deepEqual(logicalDocument({ ...document }), document);
});

Deno.test("a name that reads like an object sibling is escaped, and comes back", () => {
  // A context term may end in `@node`: it gets one more `@`, so it is never read as a sibling.
  const document: SearchDocument = {
    ...BASE,
    "range@node": "urn:C",
    "x@node@": ["urn:D", { "y@node": { z: 1 } }],
    "plain@": "kept",
  };
  const physical = physicalDocument(document);
  assert.deepEqual(physical, {
    ...BASE,
    "range@node@": "urn:C",
    "x@node@@": ["urn:D"],
    "x@node@@@node": [{ "y@node@@node": { z: 1 } }],
    "plain@": "kept",
  });
  assert.deepEqual(logicalDocument(physical), document);
  assert.equal(physicalPath("range@node"), "range@node@");
  assert.equal(physicalPath("x@node@.y@node.z"), "x@node@@@node.y@node@@node.z");
});

Deno.test("declared object mappings move to the object sibling; value mappings stay", () => {
  const properties = {
    year: { type: "integer" },
    author: { properties: { name: { type: "keyword" }, born: { properties: { y: {} } } } },
    place: { type: "nested", properties: { name: { type: "keyword" } } },
  };
  assert.deepEqual(physicalProperties(properties), {
    year: { type: "integer" },
    "author@node": {
      properties: { name: { type: "keyword" }, "born@node": { properties: { y: {} } } },
    },
    "place@node": { type: "nested", properties: { name: { type: "keyword" } } },
  });
  const merged = mergedMappings({ properties }) as { properties: Record<string, unknown> };
  assert.ok("author@node" in merged.properties && !("author" in merged.properties));
});
