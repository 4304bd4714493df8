/**
 * One N-Triples statement read back into its three terms, in RDF/JSON's shape
 * (`{type: "uri" | "bnode" | "literal", value, lang?, datatype?}`), so a page shows a
 * triple the API gives as text (the history's diff) as it shows a graph's terms. Blank
 * nodes keep the label the API gave.
 */

const IRI = String.raw`<((?:[^<>"{}|^\x60\\\s]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)>`;
const BLANK = String.raw`(_:[^\s<>"]+)`;
const LITERAL = String.raw`"((?:[^"\\\n\r]|\\.)*)"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^${IRI})?`;
const TERM = new RegExp(String.raw`\s*(?:${IRI}|${BLANK}|${LITERAL})`, "y");

const ESCAPES = { t: "\t", b: "\b", n: "\n", r: "\r", f: "\f", '"': '"', "'": "'", "\\": "\\" };

/** The text an N-Triples string or IRI escapes (`\n`, `\u00e9`, …) stands for. */
function unescape(text) {
  return text.replace(
    /\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g,
    (whole, short, long, other) =>
      short || long ? String.fromCodePoint(parseInt(short ?? long, 16)) : ESCAPES[other] ?? whole,
  );
}

/** The terms of `<s> <p> o .`, or undefined for text that is not one statement. */
export function parseStatement(statement) {
  const terms = [];
  TERM.lastIndex = 0;
  for (let index = 0; index < 3; index++) {
    const match = TERM.exec(statement);
    if (!match) return undefined;
    const [, iri, blank, literal, lang, datatype] = match;
    if (iri !== undefined) terms.push({ type: "uri", value: unescape(iri) });
    else if (blank !== undefined) terms.push({ type: "bnode", value: blank });
    else {
      terms.push({
        type: "literal",
        value: unescape(literal),
        ...(lang ? { lang } : {}),
        ...(datatype !== undefined ? { datatype: unescape(datatype) } : {}),
      });
    }
  }
  return /^\s*\.\s*$/.test(statement.slice(TERM.lastIndex)) ? terms : undefined;
}
