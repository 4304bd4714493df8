/**
 * Highlights for the embedded engine: the fragments of a document's `text` where the words
 * of `q` occur (and of `text_<language>` where their stems do), as OpenSearch's highlighter
 * answers them (HTML-escaped text, matches in
 * `<em>…</em>`). Written here because the FTS5 table is contentless (the text lives once, in
 * the document), so FTS5's own `snippet()` has nothing to cut from. Words are found the way
 * the FTS5 `unicode61` tokenizer finds them: runs of letters, digits and private-use
 * characters, compared without case.
 */
import type { SearchDocument } from "./search_engine.ts";
import { languageTextField, SEARCH_LANGUAGES, stemOf, WORD } from "../fields/languages.ts";

/** Characters of context kept on each side of a match. */
const CONTEXT = 40;
/** Most fragments per field, as OpenSearch's default `number_of_fragments`. */
const MAX_FRAGMENTS = 5;

/**
 * The highlights of a hit, as OpenSearch gives them for the service's query: `text` where a
 * word of `q` occurs, and `text_<language>` where a word has the stem of a word of `q` in
 * that language; with `language`, only that language's field.
 */
export function highlightDocument(
  document: SearchDocument,
  q: string,
  language?: string,
): Record<string, string[]> {
  const highlights: Record<string, string[]> = {};
  const words = q.match(WORD) ?? [];
  const add = (field: string, text: unknown, matches: (word: string) => boolean) => {
    if (typeof text !== "string") return;
    const fragments = highlightFragments(text, matches);
    if (fragments.length > 0) highlights[field] = fragments;
  };
  if (language === undefined) {
    const wanted = new Set(words.map((word) => word.toLowerCase()));
    add("text", document.text, (word) => wanted.has(word.toLowerCase()));
  }
  for (const code of language === undefined ? SEARCH_LANGUAGES : [language]) {
    const field = languageTextField(code);
    if (!(field in document)) continue;
    const stems = new Set(words.map((word) => stemOf(code, word)));
    add(field, document[field], (word) => stems.has(stemOf(code, word)));
  }
  return highlights;
}

/** Fragments of `text` around the words `matches` accepts, in text order; empty when none. */
export function highlightFragments(text: string, matches: (word: string) => boolean): string[] {
  const found: { start: number; end: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    if (matches(match[0])) found.push({ start: match.index, end: match.index + match[0].length });
  }
  const fragments: { start: number; end: number; matches: typeof found }[] = [];
  for (const match of found) {
    const start = lineStart(text, Math.max(0, match.start - CONTEXT), match.start);
    const end = lineEnd(text, Math.min(text.length, match.end + CONTEXT), match.end);
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
