/** findRootSubjects: the candidates for the item a request body describes. */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { Parser } from "n3";
import { findRootSubjects } from "../../src/rdf/roots.ts";

function roots(turtle: string) {
  return findRootSubjects(
    new Parser({ format: "text/turtle", blankNodePrefix: "" }).parse(
      `@prefix ex: <http://example.org/> .\n${turtle}`,
    ),
  );
}

Deno.test("one IRI root with nested blank nodes and referenced resources", () => {
  const found = roots(`ex:item ex:author ex:alice ; ex:address [ ex:city "Bern" ] .
ex:alice ex:name "Alice" .`);
  assert.deepEqual(found, { iris: ["http://example.org/item"], blankNodes: [] });
});

Deno.test("a blank root and several IRI roots are all reported, in order", () => {
  assert.deepEqual(roots(`_:doc ex:title "x" ; ex:part [ ex:n 1 ] .`), {
    iris: [],
    blankNodes: ["doc"],
  });
  assert.deepEqual(roots(`ex:b ex:p "1" . ex:a ex:p "2" . ex:b ex:q "3" .`), {
    iris: ["http://example.org/b", "http://example.org/a"],
    blankNodes: [],
  });
});

Deno.test("a self reference keeps a root; a cycle has none; literals never count", () => {
  assert.deepEqual(roots(`ex:a ex:sameAs ex:a ; ex:p "ex:a" .`).iris, ["http://example.org/a"]);
  assert.deepEqual(roots(`ex:a ex:next ex:b . ex:b ex:next ex:a .`), { iris: [], blankNodes: [] });
  assert.deepEqual(roots(``), { iris: [], blankNodes: [] });
});

Deno.test("an IRI and a blank node with the same text are different nodes", () => {
  const found = roots(`_:x ex:p <urn:x> . <urn:x> ex:p "v" .`);
  assert.deepEqual(found, { iris: [], blankNodes: ["x"] });
});
