/**
 * Turtle syntax highlighting for previews: splits the text into comments, IRIs, strings,
 * prefixed names, keywords and the rest, and returns DOM nodes (spans with a class each),
 * never HTML text, so nothing in the data can become markup.
 */

const TOKEN = new RegExp(
  [
    String.raw`(?<comment>#[^\n]*)`,
    String.raw`(?<iri><[^<>"{}|^\x60\\\s]*>)`,
    String.raw`(?<string>"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')`,
    String.raw`(?<keyword>@prefix\b|@base\b|\bPREFIX\b|\bBASE\b|\ba\b(?=\s)|\btrue\b|\bfalse\b)`,
    String.raw`(?<language>@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*)`,
    String.raw`(?<name>(?:[A-Za-z][\w.-]*)?:(?:[\w.:%-]|\\[^\s])*|_:[\w.-]+)`,
    String.raw`(?<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)`,
  ].join("|"),
  "g",
);

/** The text as highlighted DOM nodes. */
export function highlightTurtle(text) {
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    const kind = Object.entries(match.groups).find(([, value]) => value !== undefined)?.[0];
    const span = document.createElement("span");
    span.className = `tt-${kind}`;
    span.textContent = match[0];
    nodes.push(span);
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}
