/** The change between two versions of an item (`src/items/version_diff.ts`). */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import { graphChange } from "../../src/items/version_diff.ts";
import { rdfPatchText } from "../../src/rdf/writers/rdf_patch.ts";

const parse = (text: string) =>
  new Parser({ format: "N-Triples", blankNodePrefix: "" }).parse(text);

Deno.test("ground triples are compared as a set; blank-node triples are all replaced", () => {
  const from = parse(`<s:a> <p:t> "old" .
<s:a> <p:k> "kept" .
<s:a> <p:part> _:b0 .
_:b0 <p:n> "note" .
`);
  const to = parse(`<s:a> <p:t> "new" .
<s:a> <p:k> "kept" .
<s:a> <p:part> _:b0 .
_:b0 <p:n> "note" .
`);
  const change = graphChange(from, to);
  const statements = (quads: typeof from) =>
    quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`);
  assert.deepEqual(statements(change.removed), ["s:a p:t old", "s:a p:part b0", "b0 p:n note"]);
  assert.deepEqual(statements(change.added), ["s:a p:t new", "s:a p:part b0", "b0 p:n note"]);
  // No blank nodes: only what differs.
  const ground = graphChange(from.slice(0, 2), to.slice(0, 2));
  assert.deepEqual(statements(ground.removed), ["s:a p:t old"]);
  assert.deepEqual(statements(ground.added), ["s:a p:t new"]);
  assert.deepEqual(graphChange(from, from).added.length, 2, "blank-node triples always move");
});

Deno.test("RDF Patch: one transaction, deletes before adds, N-Triples terms", () => {
  const [old, added] = parse(`<s:a> <p:t> "old"@en .\n_:b1 <p:t> "a\\"b" .\n`);
  assert.equal(
    rdfPatchText({ removed: [old], added: [added] }),
    `TX .\nD <s:a> <p:t> "old"@en .\nA _:b1 <p:t> "a\\"b" .\nTC .\n`,
  );
});
