/**
 * Highlights for the embedded engine: the fragments of a document's `text` where the words
 * of `q` occur, as OpenSearch's highlighter answers them (HTML-escaped text, matches in
 * `<em>…</em>`). Written here because the FTS5 table is contentless (the text lives once, in
 * the document), so FTS5's own `snippet()` has nothing to cut from. Words are found the way
 * the FTS5 `unicode61` tokenizer finds them: runs of letters, digits and private-use
 * characters, compared without case.
 */

const WORD = /[\p{L}\p{N}\p{Co}]+/gu;
/** Characters of context kept on each side of a match. */
const CONTEXT = 40;
/** Most fragments per field, as OpenSearch's default `number_of_fragments`. */
const MAX_FRAGMENTS = 5;

/** Fragments of `text` around the words of `q`, in text order; empty when none occurs. */
export function highlightFragments(text: string, q: string): string[] {
  const wanted = new Set((q.match(WORD) ?? []).map((word) => word.toLowerCase()));
  if (wanted.size === 0) return [];
  const matches: { start: number; end: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    if (wanted.has(match[0].toLowerCase())) {
      matches.push({ start: match.index, end: match.index + match[0].length });
    }
  }
  const fragments: { start: number; end: number; matches: typeof matches }[] = [];
  for (const match of matches) {
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
