/**
 * N-Triples and N-Quads writers: one statement per line, in canonical form (RDF 1.1
 * N-Triples §4 and the RDF 1.2 canonical N-Triples rules for escaping).
 */
import type { Quad, Term } from "n3";
import { portableBlankLabel } from "./blank_labels.ts";
import { assertDefaultGraph, type QuadWriter, type TextSink } from "./text_sink.ts";

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

/** Characters a string literal cannot hold raw in canonical N-Triples. */
// deno-lint-ignore no-control-regex -- control characters are what must be escaped
const LITERAL_ESCAPE = /[\u0000-\u001f"\\\u007f\ufffe\uffff]/g;
/** Characters an IRIREF cannot hold raw. */
// deno-lint-ignore no-control-regex -- control characters are what must be escaped
const IRI_ESCAPE = /[\u0000-\u0020<>"{}|^`\\]/g;

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function uchar(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

function escapeLiteral(value: string): string {
  LITERAL_ESCAPE.lastIndex = 0;
  if (!LITERAL_ESCAPE.test(value)) return value;
  return value.replace(LITERAL_ESCAPE, (c) => SHORT_ESCAPES[c] ?? uchar(c));
}

/** `<iri>`, with the characters IRIREF forbids written as `\uXXXX`. */
export function encodeIri(iri: string): string {
  IRI_ESCAPE.lastIndex = 0;
  return `<${IRI_ESCAPE.test(iri) ? iri.replace(IRI_ESCAPE, uchar) : iri}>`;
}

/** A term as N-Triples writes it. */
export function encodeTerm(term: Term): string {
  switch (term.termType) {
    case "NamedNode":
      return encodeIri(term.value);
    case "BlankNode":
      return `_:${portableBlankLabel(term.value)}`;
    case "Literal": {
      const quoted = `"${escapeLiteral(term.value)}"`;
      if (term.language) return `${quoted}@${term.language}`;
      const datatype = term.datatype.value;
      return datatype === XSD_STRING || datatype === ""
        ? quoted
        : `${quoted}^^${encodeIri(datatype)}`;
    }
    default:
      throw new TypeError(`A ${term.termType} term cannot be written as RDF`);
  }
}

class LineWriter implements QuadWriter {
  constructor(private readonly sink: TextSink, private readonly withGraphs: boolean) {}

  write(quad: Quad): void {
    const statement = `${encodeTerm(quad.subject)} ${encodeTerm(quad.predicate)} ${
      encodeTerm(quad.object)
    }`;
    if (quad.graph.termType === "DefaultGraph") {
      this.sink.push(`${statement} .\n`);
    } else {
      if (!this.withGraphs) assertDefaultGraph(quad, "N-Triples");
      this.sink.push(`${statement} ${encodeTerm(quad.graph)} .\n`);
    }
  }

  end(): void {}
}

/** An N-Triples writer: refuses quads outside the default graph. */
export function createNTriplesWriter(sink: TextSink): QuadWriter {
  return new LineWriter(sink, false);
}

/** An N-Quads writer: the graph name follows the object when it is not the default. */
export function createNQuadsWriter(sink: TextSink): QuadWriter {
  return new LineWriter(sink, true);
}
