/**
 * The bulk import's splitter (src/rdf/graph_blocks.ts): graph blocks and refused parts come
 * out the same whatever the chunking of the input (a chunk may end inside an escape, a
 * `"""` or after a statement's `.`), with the lines of the input; braces, dots and quotes
 * inside IRIs, strings and comments do not count.
 */
import { strict as assert } from "node:assert";
import { type BulkFormat, type GraphBlock, graphBlocks } from "../../src/rdf/graph_blocks.ts";
import { blockItem } from "../../src/rdf/block_item.ts";

const TRIG = `PREFIX ex: <https://ex.example.org/>
@prefix dct: <http://purl.org/dc/terms/> .
# a comment { with a brace
<https://ex.example.org/a> { ex:a dct:title """long } string with "quotes" and
a line break""" ; ex:n 1.5 ; ex:s 'it\\'s' ; ex:t "\\"}" . }

GRAPH ex:b {
  ex:b dct:title "b" .   # } in a comment
  ex:b ex:c ex:x.
}
ex:d dct:title "default graph" .
{ ex:e dct:title "unnamed" }
<https://ex.example.org/f> { ex:f dct:title "f" .
`;

const NQUADS = `<https://ex.example.org/a> <urn:p> "x # not a comment" <https://ex.example.org/a> .
<https://ex.example.org/a> <urn:p> "y"@en <https://ex.example.org/a> .

<https://ex.example.org/b> <urn:p> "1"^^<urn:t> <https://ex.example.org/b> .
<https://ex.example.org/c> <urn:p> <urn:o> .
<https://ex.example.org/d> <urn:p> "d" <https://ex.example.org/d> .`;

async function split(text: string, format: BulkFormat, sizes: number[]): Promise<GraphBlock[]> {
  async function* chunks() {
    let at = 0;
    for (let n = 0; at < text.length; n++) {
      const size = sizes[n % sizes.length];
      yield text.slice(at, at + size);
      at += size;
    }
  }
  const blocks: GraphBlock[] = [];
  for await (const block of graphBlocks(chunks(), format, { maxBlockChars: 1 << 20 })) {
    blocks.push(block);
  }
  return blocks;
}

Deno.test("TriG: blocks, lines and refusals, whatever the chunking", async () => {
  const whole = await split(TRIG, "trig", [TRIG.length]);
  assert.deepEqual(
    whole.map((block) => [block.line, block.refused?.type ?? "item"]),
    [[4, "item"], [7, "item"], [11, "default-graph-refused"], [12, "default-graph-refused"], [
      13,
      "rdf-syntax",
    ]],
  );
  assert.match(whole[0].text, /^PREFIX ex: <https:\/\/ex.example.org\/> @prefix dct: .* \.\n/);
  assert.match(whole[0].text, /"\\"}" \. }$/);
  const a = await blockItem(whole[0], "trig", undefined);
  assert.equal(a.uri, "https://ex.example.org/a");
  assert.equal(a.quads.length, 4);
  assert.ok(a.quads.every((quad) => quad.graph.termType === "DefaultGraph"));
  assert.equal((await blockItem(whole[1], "trig", undefined)).quads.length, 2);
  for (const sizes of [[1], [2], [3], [7, 1, 13], [64]]) {
    assert.deepEqual(await split(TRIG, "trig", sizes), whole, `chunks of ${sizes}`);
  }
});

Deno.test("N-Quads: runs of one graph, default-graph lines refused, whatever the chunking", async () => {
  const whole = await split(NQUADS, "nquads", [NQUADS.length]);
  assert.deepEqual(
    whole.map((block) => [block.line, block.refused?.type ?? "item"]),
    [[1, "item"], [4, "item"], [5, "default-graph-refused"], [6, "item"]],
  );
  for (const sizes of [[1], [5, 2], [100]]) {
    assert.deepEqual(await split(NQUADS, "nquads", sizes), whole, `chunks of ${sizes}`);
  }
});

Deno.test("a block over the size limit is refused, not held", async () => {
  const big = `<urn:g> { <urn:s> <urn:p> "${
    "x".repeat(5000)
  }" . }\n<urn:h> { <urn:s> <urn:p> "y" . }`;
  const blocks: GraphBlock[] = [];
  async function* one() {
    yield big;
  }
  for await (const block of graphBlocks(one(), "trig", { maxBlockChars: 1000 })) {
    blocks.push(block);
  }
  assert.deepEqual(blocks.map((block) => block.refused?.type ?? "item"), [
    "item-too-large",
    "item",
  ]);
  assert.ok(blocks[0].text.length < 1000);
});
