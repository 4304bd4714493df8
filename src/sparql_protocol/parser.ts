/**
 * Reading SPARQL with sparqljs, each constant kept as the query wrote it.
 *
 * A numeric literal's lexical form is its token as written (SPARQL 1.1 Query, 4.1.2: `+5` is
 * `"+5"^^xsd:integer`, `1.0E0` is `"1.0E0"^^xsd:double`), and RDF terms are equal only when
 * their lexical forms are: `+5` matches a stored `+5`, not a stored `5`. sparqljs drops the
 * sign of a positive number and lowercases a double's exponent, and keeps the backslash of a
 * prefixed name's escapes (`ex:a\.b` becomes `…a\.b`, where the IRI is `…a.b`). Every query
 * that is matched against stored terms or written back as text (the row cap, a scope's
 * rewrite) is read with this parser, so the constant looked up or sent is the one written.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";

const XSD = "http://www.w3.org/2001/XMLSchema#";
const NUMERIC = new Set([`${XSD}integer`, `${XSD}decimal`, `${XSD}double`]);

/** A numeric token of the grammar (INTEGER, DECIMAL, DOUBLE and their signed forms). */
const NUMERIC_TOKEN =
  /^[+-]?(?:[0-9]+|[0-9]*\.[0-9]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+)$/;

/** A prefixed name's escaped character (PN_LOCAL_ESC): the name stands for the character. */
const LOCAL_ESCAPE = /\\([_~.\-!$&'()*+,;=/?#@%])/g;

/** What a jison parser generated for sparqljs has beyond its typings. */
interface JisonParser {
  /** Runs a production's action, with `this` the value being built (`this.$`). */
  performAction(this: { $: unknown }, ...args: unknown[]): unknown;
  /** Each production's left-hand symbol and right-hand length. */
  productions_: [number, number][];
}

/** The arguments of `performAction` that are read here. */
const STATE = 4;
const VALUES = 5;

/** A sparqljs parser whose literals and IRIs are what the query wrote (module comment). */
export function sparqlParser(): sparqljs.SparqlParser {
  const parser = new sparqljs.Parser();
  const jison = parser as unknown as JisonParser;
  const perform = jison.performAction;
  const productions = jison.productions_;
  subjectRules ??= triplesSameSubjectRules(parser);
  const rules = subjectRules;
  jison.performAction = function (this: { $: unknown }, ...args: unknown[]) {
    // `[ :p :o ] .`: a blank node property list with no property list after it is a whole
    // triples block, but sparqljs maps over the absent list and fails. An empty one is what
    // the grammar means (SPARQL 1.1, TriplesSameSubject).
    if (rules.has(args[STATE] as number)) {
      const values = args[VALUES] as unknown[];
      if (values[values.length - 1] === undefined) values[values.length - 1] = [];
    }
    const result = perform.apply(this, args);
    // Only a production of one token builds a term from the token's text.
    if (productions[args[STATE] as number]?.[1] === 1) {
      const values = args[VALUES] as unknown[];
      const token = values[values.length - 1];
      if (typeof token === "string") asWritten(this.$, token);
    }
    return result;
  };
  return parser;
}

/** The grammar's rules below, found once: every parser shares sparqljs's one grammar. */
let subjectRules: Set<number> | undefined;

/** The productions `TriplesSameSubject(Path) → subject propertyList` of sparqljs's grammar. */
function triplesSameSubjectRules(parser: sparqljs.SparqlParser): Set<number> {
  const jison = parser as unknown as JisonParser & { symbols_: Record<string, number> };
  const lhs = new Set(
    ["TriplesSameSubject", "TriplesSameSubjectPath"].map((name) => jison.symbols_[name]),
  );
  const rules = new Set<number>();
  jison.productions_.forEach((production, index) => {
    if (Array.isArray(production) && lhs.has(production[0]) && production[1] === 2) {
      rules.add(index);
    }
  });
  return rules;
}

/** Puts back into `term`, just built from `token`, what sparqljs took out of it. */
function asWritten(term: unknown, token: string): void {
  if (typeof term !== "object" || term === null) return;
  // The term was made by this very action: nothing else holds it yet.
  const built = term as { termType?: string; value: string; datatype?: { value: string } };
  if (built.termType === "Literal") {
    if (NUMERIC.has(built.datatype?.value ?? "") && NUMERIC_TOKEN.test(token)) {
      built.value = token;
    }
  } else if (built.termType === "NamedNode" && token[0] !== "<" && token.includes("\\")) {
    built.value = built.value.replace(LOCAL_ESCAPE, "$1");
  }
}
