/**
 * The embedded engine's highlighter (src/search/highlight.ts): words found as FTS5's
 * unicode61 tokenizer finds them, fragments cut around them within one literal, escaped
 * as OpenSearch's `html` encoder escapes.
 */
import { strict as assert } from "node:assert";
import { highlightFragments } from "../../src/search/highlight.ts";

/** Words equal to one of `q`'s, without case: the plain-word highlighter. */
function words(q: string): (word: string) => boolean {
  const wanted = new Set(q.toLowerCase().split(/\s+/));
  return (word) => wanted.has(word.toLowerCase());
}

Deno.test("whole words of q, any case, each in <em>", () => {
  assert.deepEqual(highlightFragments("The Fox and the foxes", words("FOX")), [
    "The <em>Fox</em> and the foxes",
  ]);
  assert.deepEqual(highlightFragments("Ærø Café", words("café ærø")), [
    "<em>Ærø</em> <em>Café</em>",
  ]);
  assert.deepEqual(highlightFragments("nothing here", words("fox")), []);
  assert.deepEqual(highlightFragments("fox", words("?!")), []);
});

Deno.test("a fragment stays within its literal (line) and keeps 40 characters around", () => {
  const text = `first literal\n${"a".repeat(50)} fox ${"b".repeat(50)}\nlast fox`;
  assert.deepEqual(highlightFragments(text, words("fox")), [
    `${"a".repeat(40 - 1)} <em>fox</em> ${"b".repeat(39)}`,
    "last <em>fox</em>",
  ]);
});

Deno.test("close matches share a fragment; at most five fragments", () => {
  assert.deepEqual(highlightFragments("fox fox", words("fox")), ["<em>fox</em> <em>fox</em>"]);
  const lines = Array.from({ length: 8 }, (_, n) => `fox ${n}`).join("\n");
  const fragments = highlightFragments(lines, words("fox"));
  assert.deepEqual(fragments, [0, 1, 2, 3, 4].map((n) => `<em>fox</em> ${n}`));
});

Deno.test("text is escaped like OpenSearch's html encoder", () => {
  assert.deepEqual(highlightFragments(`<a href='x'>"Fox" & co</a>`, words("fox")), [
    "&lt;a href=&#x27;x&#x27;&gt;&quot;<em>Fox</em>&quot; &amp; co&lt;&#x2F;a&gt;",
  ]);
});
