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
  const text = `first literal\n${"x ".repeat(30)}fox${" y".repeat(30)}\nlast fox`;
  assert.deepEqual(highlightFragments(text, words("fox")), [
    `${"x ".repeat(20)}<em>fox</em>${" y".repeat(20)}`,
    "last <em>fox</em>",
  ]);
});

Deno.test("a fragment starts and ends at word boundaries", () => {
  // The 40 characters end inside a word: the whole word is taken (up to 20 more).
  const text = `${"a".repeat(50)} fox ${"b".repeat(50)}`;
  assert.deepEqual(highlightFragments(text, words("fox")), [
    `${"a".repeat(50)} <em>fox</em> ${"b".repeat(50)}`,
  ]);
  // A "word" reaching further is left out rather than cut.
  const long = `${"a".repeat(90)} fox ${"b".repeat(90)}`;
  assert.deepEqual(highlightFragments(long, words("fox")), ["<em>fox</em>"]);
  // Diacritics are part of a word.
  const accented = `${"d".repeat(30)} se\u0301ance ${"é".repeat(6)} fox`;
  const [fragment] = highlightFragments(accented, words("fox"));
  assert.ok(/^(d+|se\u0301ance) /.test(fragment), fragment);
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
