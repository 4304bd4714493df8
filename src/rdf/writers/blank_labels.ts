/**
 * Blank node labels every output syntax accepts.
 *
 * Labels come from several parsers (N3.js, oxigraph, jsonld, RDF/JSON) and from callers;
 * some are not legal in every syntax (oxigraph's start with a digit, which RDF/XML's
 * `rdf:nodeID` refuses; RDF/JSON allows any string). One deterministic, injective mapping
 * keeps the same node the same label across a whole streamed document without a table.
 */

/** Legal as an N-Triples/Turtle label and as an XML NCName; `x…` is kept for escapes. */
const PORTABLE_LABEL = /^[A-Za-wyz_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/**
 * A label legal in N-Triples, Turtle, N3, TriG, RDF/XML (`rdf:nodeID`) and JSON-LD.
 *
 * Portable labels that do not start with `x` are kept; every other label becomes `x`
 * followed by its characters, each one outside `[A-Za-z0-9]` written as `_<hex code>_`,
 * so two different labels never map to the same one.
 */
export function portableBlankLabel(label: string): string {
  if (PORTABLE_LABEL.test(label)) return label;
  let escaped = "x";
  for (const character of label) {
    escaped += /[A-Za-z0-9]/.test(character)
      ? character
      : `_${character.codePointAt(0)!.toString(16)}_`;
  }
  return escaped;
}
