/**
 * Highlights: one list of fragments per hit, under `text`, whatever fields matched. OpenSearch
 * highlights each field `q` searched (`text`, `text_<language>`); {@link mergeHighlights}
 * makes the one list of them, on both engines. For the embedded engine the fragments are cut
 * here (HTML-escaped text, matches in `<em>…</em>`, as OpenSearch's highlighter answers),
 * because the FTS5 table is contentless (the text lives once, in the document), so FTS5's own
 * `snippet()` has nothing to cut from. Words are found the way the FTS5 `unicode61` tokenizer
 * finds them: runs of letters, digits and private-use characters, compared without case and
 * without diacritics (`remove_diacritics 2`). A fragment starts and ends at a word boundary.
 */
import type { SearchDocument } from "./search_engine.ts";
import { languageTextField, SEARCH_LANGUAGES, stemOf, WORD } from "../fields/languages.ts";
import { sortKey } from "./label_fields.ts";

/** Characters of context kept on each side of a match, at most. */
const CONTEXT = 40;
/** Most fragments per hit, as OpenSearch's default `number_of_fragments`. */
const MAX_FRAGMENTS = 5;
/** The one field highlights are answered under. */
export const HIGHLIGHT_FIELD = "text";

/**
 * The highlights of a hit: where a word of `q` occurs in `text`, and where a word has the
 * stem of a word of `q` in a `text_<language>` field; with `language`, only that language's
 * field. One list (see {@link mergeHighlights}).
 */
export function highlightDocument(
  document: SearchDocument,
  q: string,
  language?: string,
): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  const words = q.match(WORD) ?? [];
  const add = (field: string, text: unknown, matches: (word: string) => boolean) => {
    if (typeof text !== "string") return;
    const fragments = highlightFragments(text, matches);
    if (fragments.length > 0) byField[field] = fragments;
  };
  if (language === undefined) {
    const wanted = new Set(words.map(fold));
    add("text", document.text, (word) => wanted.has(fold(word)));
  }
  for (const code of language === undefined ? SEARCH_LANGUAGES : [language]) {
    const field = languageTextField(code);
    if (!(field in document)) continue;
    const stems = new Set(words.map((word) => fold(stemOf(code, word))));
    add(field, document[field], (word) => stems.has(fold(stemOf(code, word))));
  }
  return mergeHighlights(byField);
}

/**
 * The fragments of every highlighted field as one list under `text`: `text`'s first, then
 * those of the language fields (in field name order) whose words are not already shown,
 * at most {@link MAX_FRAGMENTS}; `{}` when none.
 */
export function mergeHighlights(byField: Record<string, string[]>): Record<string, string[]> {
  const fields = Object.keys(byField).sort((a, b) =>
    a === HIGHLIGHT_FIELD ? -1 : b === HIGHLIGHT_FIELD ? 1 : a < b ? -1 : a > b ? 1 : 0
  );
  const merged: string[] = [];
  const shown = new Set<string>();
  for (const field of fields) {
    // Each literal is a line of the field: a fragment never spans two (OpenSearch's may).
    const lines = byField[field].flatMap((fragment) => fragment.split("\n"))
      .map((line) => line.trim()).filter((line) => line.includes("<em>"));
    for (const fragment of lines) {
      const plain = fragment.replace(/<\/?em>/g, "");
      if ([...shown].some((text) => text.includes(plain) || plain.includes(text))) continue;
      shown.add(plain);
      merged.push(fragment);
      if (merged.length === MAX_FRAGMENTS) return { [HIGHLIGHT_FIELD]: merged };
    }
  }
  return merged.length > 0 ? { [HIGHLIGHT_FIELD]: merged } : {};
}

/** A word as FTS5 compares it: lower case, without diacritics. */
function fold(word: string): string {
  return sortKey(word);
}

/** Fragments of `text` around the words `matches` accepts, in text order; empty when none. */
export function highlightFragments(text: string, matches: (word: string) => boolean): string[] {
  const found: { start: number; end: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    if (matches(match[0])) found.push({ start: match.index, end: match.index + match[0].length });
  }
  const fragments: { start: number; end: number; matches: typeof found }[] = [];
  for (const match of found) {
    const start = wordStart(text, lineStart(text, Math.max(0, match.start - CONTEXT), match.start));
    const end = wordEnd(text, lineEnd(text, Math.min(text.length, match.end + CONTEXT), match.end));
    const last = fragments.at(-1);
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.matches.push(match);
    } else {
      if (fragments.length === MAX_FRAGMENTS) break;
      fragments.push({ start, end, matches: [match] });
    }
  }
  return fragments.map((fragment) => {
    let html = "";
    let at = fragment.start;
    for (const match of fragment.matches) {
      html += escapeHtml(text.slice(at, match.start)) +
        `<em>${escapeHtml(text.slice(match.start, match.end))}</em>`;
      at = match.end;
    }
    return (html + escapeHtml(text.slice(at, fragment.end))).trim();
  });
}

/**
 * `at` moved to a word boundary when it falls inside a word: back to the word's start when
 * that adds at most {@link WORD_REACH} characters, else on to its end (a very long "word").
 */
function wordStart(text: string, at: number): number {
  if (at === 0 || !isWordChar(text[at - 1]) || !isWordChar(text[at] ?? "")) return at;
  let back = at;
  while (back > 0 && isWordChar(text[back - 1])) back--;
  if (at - back <= WORD_REACH && !text.slice(back, at).includes("\n")) return back;
  let next = at;
  while (next < text.length && isWordChar(text[next])) next++;
  return next;
}

/** `at` moved to a word boundary, as {@link wordStart} does, forward first. */
function wordEnd(text: string, at: number): number {
  if (at === text.length || !isWordChar(text[at]) || !isWordChar(text[at - 1] ?? "")) return at;
  let next = at;
  while (next < text.length && isWordChar(text[next])) next++;
  if (next - at <= WORD_REACH) return next;
  let back = at;
  while (back > 0 && isWordChar(text[back - 1])) back--;
  return back;
}

/** Characters a fragment may reach beyond its context to take a whole word. */
const WORD_REACH = 20;

function isWordChar(char: string): boolean {
  return /[\p{L}\p{N}\p{Co}\p{M}]/u.test(char);
}

/** A fragment never reaches back over a line break: each literal is a line of `text`. */
function lineStart(text: string, from: number, match: number): number {
  const newline = text.lastIndexOf("\n", match - 1);
  return newline >= from ? newline + 1 : from;
}

function lineEnd(text: string, to: number, match: number): number {
  const newline = text.indexOf("\n", match);
  return newline >= 0 && newline < to ? newline : to;
}

/** The escapes of OpenSearch's `html` highlight encoder (Lucene's SimpleHTMLEncoder). */
const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#x27;",
  "/": "&#x2F;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'/]/g, (char) => ESCAPES[char]);
}
