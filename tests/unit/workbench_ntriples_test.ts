/**
 * The workbench's reading of an N-Triples statement (src/ui/static/ntriples.js), which the
 * item page's diff shows term by term: every term the service's own N-Triples writer gives
 * (the diff's `removed` and `added` are written by it) reads back as the term it was, escapes
 * and all; anything else is refused rather than shown wrong.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { encodeTerm } from "../../src/rdf/writers/ntriples.ts";
import { parseStatement } from "../../src/ui/static/ntriples.js";

const { blankNode, literal, namedNode, quad } = DataFactory;
const S = namedNode("https://example.org/s");
const P = namedNode("https://example.org/p");
const XSD = "http://www.w3.org/2001/XMLSchema#";

/** A triple as the diff route writes it. */
function statement(triple: Quad): string {
  return `${encodeTerm(triple.subject)} ${encodeTerm(triple.predicate)} ${
    encodeTerm(triple.object)
  } .`;
}

/** A term in RDF/JSON's shape: what the page reads a statement into. */
function asRdfJson(term: Quad["object"]): Record<string, string> {
  if (term.termType === "NamedNode") return { type: "uri", value: term.value };
  if (term.termType !== "Literal") throw new TypeError(term.termType);
  if (term.language) return { type: "literal", value: term.value, lang: term.language };
  const datatype = term.datatype.value;
  return datatype === `${XSD}string`
    ? { type: "literal", value: term.value }
    : { type: "literal", value: term.value, datatype };
}

Deno.test("terms the service writes read back as they were", () => {
  const objects = [
    namedNode("https://example.org/o"),
    namedNode("https://example.org/é space?"),
    literal("plain"),
    literal("colour", "en-US"),
    literal("42", namedNode(`${XSD}integer`)),
    literal('say "hi"\\ \n\ttab\r é 𝄞 \u0007'),
  ];
  for (const object of objects) {
    const text = statement(quad(S, P, object));
    assert.deepEqual(
      parseStatement(text),
      [{ type: "uri", value: S.value }, { type: "uri", value: P.value }, asRdfJson(object)],
      text,
    );
  }
  const blank = parseStatement(statement(quad(blankNode("b0"), P, blankNode("b1"))));
  assert.equal(blank?.[0].type, "bnode");
  assert.match(blank?.[0].value ?? "", /^_:/);
  assert.equal(blank?.[2].type, "bnode");
});

Deno.test("text that is not one statement is refused", () => {
  for (
    const text of [
      "",
      "<https://example.org/s> <https://example.org/p> .",
      '<https://example.org/s> <https://example.org/p> "open .',
      "<https://example.org/s> <https://example.org/p> <https://example.org/o>",
      "<https://example.org/s> <https://example.org/p> <https://example.org/o> . extra",
    ]
  ) assert.equal(parseStatement(text), undefined, text);
});
