/**
 * RDF terms as SPARQL text, for the updates the SPARQL store sends.
 *
 * Every term is written in its most explicit form (`<iri>`, `"lexical"^^<datatype>`) so the
 * endpoint stores exactly the lexical form it was given, whatever shorthand the grammar
 * would allow. Blank nodes get request-local labels: blank nodes in an update template are
 * fresh for every request, which is exactly what a whole-graph write wants.
 */
import type { Literal, Quad, Term } from "n3";
import { DomainError } from "../errors/domain_error.ts";

/** invalid-input for a term that is not item data (a variable, a quoted triple). */
export function invalidTerm(termType: string): DomainError {
  return new DomainError("invalid-term", {
    detail: `A ${termType} term cannot be stored as item data`,
  });
}

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
const RDF_DIR_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

// SPARQL's IRIREF production: no white space, controls or any of <>"{}|^`\ .
// deno-lint-ignore no-control-regex
const IRI_FORBIDDEN = /[\u0000-\u0020<>"{}|^`\\]/;
const STRING_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\n": "\\n",
  "\r": "\\r",
};
const LANGUAGE_TAG = /^[a-zA-Z]+(-[a-zA-Z0-9]+)*$/;

/**
 * `<iri>` for SPARQL. An IRI SPARQL cannot express is refused with invalid-input `invalid-iri`
 * rather than sent to break the whole update.
 */
export function iriToSparql(iri: string): string {
  if (iri === "" || IRI_FORBIDDEN.test(iri)) {
    throw new DomainError("invalid-iri", {
      detail:
        `The IRI ${JSON.stringify(iri)} cannot be stored: it is empty or contains white space ` +
        'or one of <>"{}|^`\\',
    });
  }
  return `<${iri}>`;
}

/** A quoted SPARQL string (STRING_LITERAL2) holding exactly `value`. */
export function stringToSparql(value: string): string {
  return `"${value.replace(/[\\"\n\r]/g, (character) => STRING_ESCAPES[character])}"`;
}

/** The literal of an xsd:integer (`value` truncated), as written into updates. */
export function integerLiteral(value: number): string {
  return `"${Math.trunc(value)}"^^<http://www.w3.org/2001/XMLSchema#integer>`;
}

/** A literal with its language tag (and base direction) or explicit datatype. */
export function literalToSparql(literal: Literal): string {
  const quoted = stringToSparql(literal.value);
  const datatype = literal.datatype.value;
  if (literal.language) {
    if (!LANGUAGE_TAG.test(literal.language)) {
      throw new DomainError("invalid-literal", {
        detail: `The language tag ${JSON.stringify(literal.language)} is not a valid BCP 47 tag`,
      });
    }
    // RDF 1.2 base direction, written as SPARQL 1.2's LANG_DIR suffix.
    const direction = (literal as Literal & { direction?: string }).direction;
    return `${quoted}@${literal.language}${direction ? `--${direction}` : ""}`;
  }
  if (datatype === XSD_STRING || datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) {
    return quoted;
  }
  return `${quoted}^^${iriToSparql(datatype)}`;
}

/**
 * Gives blank nodes labels that are valid in SPARQL and stable within one request,
 * whatever labels the parser that produced them used.
 */
export class BlankNodeLabels {
  #labels = new Map<string, string>();
  readonly #prefix: string;

  /** `prefix` keeps these labels apart from those of other writes in the same request. */
  constructor(prefix = "") {
    this.#prefix = prefix;
  }

  /** `_:<prefix>bN` for the blank node with this id. */
  label(id: string): string {
    let label = this.#labels.get(id);
    if (label === undefined) {
      label = `_:${this.#prefix}b${this.#labels.size}`;
      this.#labels.set(id, label);
    }
    return label;
  }
}

/** One term as SPARQL text; variables and quoted triples are not storable item data. */
export function termToSparql(term: Term, blankNodes: BlankNodeLabels): string {
  switch (term.termType) {
    case "NamedNode":
      return iriToSparql(term.value);
    case "BlankNode":
      return blankNodes.label(term.value);
    case "Literal":
      return literalToSparql(term);
    default:
      throw invalidTerm(term.termType);
  }
}

/**
 * The triples of `quads` (graph ignored) as SPARQL triple lines, duplicates removed; blank
 * node labels start with `blankNodePrefix` (several writes share one update request).
 * Returns the lines and how many distinct triples they hold.
 */
export function triplesToSparql(
  quads: Iterable<Quad>,
  blankNodePrefix = "",
): { lines: string[]; count: number } {
  const blankNodes = new BlankNodeLabels(blankNodePrefix);
  // A line names each term exactly (same blank node, same label), so it is the triple's key.
  const lines = new Set<string>();
  for (const quad of quads) {
    lines.add(
      `${termToSparql(quad.subject, blankNodes)} ${termToSparql(quad.predicate, blankNodes)} ${
        termToSparql(quad.object, blankNodes)
      } .`,
    );
  }
  return { lines: [...lines], count: lines.size };
}
