/**
 * The property paths of a collection's search fields (`index.fields[].path`): parsed with
 * the SPARQL 1.1 grammar (sparqljs) and evaluated from an item over a {@link PathGraph},
 * which reads the item's own graph and the graphs of the resources it links to.
 *
 * Supported: IRIs and prefixed names (`a` too), `/` sequences, `|` alternatives, `^`
 * inverse, and `?`, `*`, `+` (repetition stops after {@link MAX_REPEAT} steps). Negated
 * property sets (`!`) are refused: they would read every predicate of every linked resource.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import type { Term } from "n3";

/** A parsed property path. */
export type FieldPath =
  | { kind: "iri"; iri: string }
  | { kind: "inverse"; path: FieldPath }
  | { kind: "sequence"; steps: FieldPath[] }
  | { kind: "alternative"; options: FieldPath[] }
  | { kind: "repeat"; path: FieldPath; min: 0 | 1; unbounded: boolean };

/** Most steps `*` and `+` take; a longer chain is cut there. */
export const MAX_REPEAT = 16;

/** Prefixes every collection may use in paths; the collection's context can redefine them. */
export const WELL_KNOWN_PREFIXES: Readonly<Record<string, string>> = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  owl: "http://www.w3.org/2002/07/owl#",
  skos: "http://www.w3.org/2004/02/skos/core#",
  dct: "http://purl.org/dc/terms/",
  dcterms: "http://purl.org/dc/terms/",
  dc: "http://purl.org/dc/elements/1.1/",
  foaf: "http://xmlns.com/foaf/0.1/",
  schema: "http://schema.org/",
};

/** Why a path cannot be used; the message is shown with the configuration key. */
export class FieldPathError extends Error {}

/**
 * The prefixes of a JSON-LD context: terms whose IRI ends in `/`, `#` or `:` (what a
 * `prefix:suffix` CURIE can build on), over the well-known ones.
 */
export function prefixesOf(context: unknown): Record<string, string> {
  const prefixes: Record<string, string> = { ...WELL_KNOWN_PREFIXES };
  const visit = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const record = value as Record<string, unknown>;
    if ("@context" in record) return visit(record["@context"]);
    for (const [term, definition] of Object.entries(record)) {
      const iri = typeof definition === "string"
        ? definition
        : (definition as Record<string, unknown> | null)?.["@id"];
      if (!term.startsWith("@") && typeof iri === "string" && /[/#:]$/.test(iri)) {
        prefixes[term] = iri;
      }
    }
  };
  visit(context);
  return prefixes;
}

/** Parses `text` as a SPARQL 1.1 property path; throws {@link FieldPathError}. */
export function parseFieldPath(text: string, prefixes: Record<string, string>): FieldPath {
  let parsed: sparqljs.SparqlQuery;
  try {
    // The path alone on one line, so the parser's column is the path's own plus a constant.
    parsed = new sparqljs.Parser({ prefixes }).parse(`SELECT * WHERE { ?s ${text} ?o }`);
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new FieldPathError(`not a SPARQL 1.1 property path: ${message}`);
  }
  const where = (parsed as sparqljs.SelectQuery).where ?? [];
  const pattern = where[0] as sparqljs.BgpPattern | undefined;
  if (where.length !== 1 || pattern?.type !== "bgp" || pattern.triples.length !== 1) {
    throw new FieldPathError("not a single property path");
  }
  return convert(pattern.triples[0].predicate as sparqljs.PropertyPath | sparqljs.IriTerm);
}

function convert(node: sparqljs.PropertyPath | sparqljs.IriTerm | sparqljs.Term): FieldPath {
  if ("termType" in node) {
    if (node.termType !== "NamedNode") {
      throw new FieldPathError(`a path step must be an IRI, not ${node.termType}`);
    }
    return { kind: "iri", iri: node.value };
  }
  const items = node.items.map((item) => convert(item as sparqljs.PropertyPath));
  switch (node.pathType) {
    case "/":
      return { kind: "sequence", steps: items };
    case "|":
      return { kind: "alternative", options: items };
    case "^":
      return { kind: "inverse", path: items[0] };
    case "?":
      return { kind: "repeat", path: items[0], min: 0, unbounded: false };
    case "*":
      return { kind: "repeat", path: items[0], min: 0, unbounded: true };
    case "+":
      return { kind: "repeat", path: items[0], min: 1, unbounded: true };
    default:
      throw new FieldPathError(
        `negated property sets (!) are not supported: they read every predicate`,
      );
  }
}

/** Where a path is evaluated: the triples around a node, forward and backward. */
export interface PathGraph {
  /** Objects of the triples `node predicate ?o`. */
  objects(node: Term, predicate: string): Promise<Term[]>;
  /** Subjects of the triples `?s predicate node`. */
  subjects(node: Term, predicate: string): Promise<Term[]>;
}

/** Every node `path` reaches from `start`, without duplicates, in the order found. */
export async function evaluatePath(
  path: FieldPath,
  start: Term,
  graph: PathGraph,
): Promise<Term[]> {
  return [...(await step(path, new TermSet([start]), graph, false)).values()];
}

async function step(
  path: FieldPath,
  from: TermSet,
  graph: PathGraph,
  inverse: boolean,
): Promise<TermSet> {
  switch (path.kind) {
    case "iri": {
      const reached = new TermSet();
      const lists = await Promise.all(
        from.values().map((node) =>
          inverse ? graph.subjects(node, path.iri) : graph.objects(node, path.iri)
        ),
      );
      for (const list of lists) reached.addAll(list);
      return reached;
    }
    case "inverse":
      return step(path.path, from, graph, !inverse);
    case "sequence": {
      // `^(a/b)` is `^b/^a`.
      const steps = inverse ? [...path.steps].reverse() : path.steps;
      let current = from;
      for (const each of steps) {
        if (current.size === 0) break;
        current = await step(each, current, graph, inverse);
      }
      return current;
    }
    case "alternative": {
      const reached = new TermSet();
      for (const option of path.options) {
        reached.addAll((await step(option, from, graph, inverse)).values());
      }
      return reached;
    }
    case "repeat": {
      const reached = new TermSet(path.min === 0 ? from.values() : []);
      let frontier = from;
      const rounds = path.unbounded ? MAX_REPEAT : 1;
      for (let round = 0; round < rounds && frontier.size > 0; round++) {
        const next = await step(path.path, frontier, graph, inverse);
        frontier = new TermSet(next.values().filter((node) => !reached.has(node)));
        reached.addAll(frontier.values());
      }
      return reached;
    }
  }
}

/** A set of RDF terms by value (IRIs, blank node labels, literals with language and type). */
class TermSet {
  readonly #terms = new Map<string, Term>();

  constructor(terms: Iterable<Term> = []) {
    this.addAll(terms);
  }

  get size(): number {
    return this.#terms.size;
  }

  has(term: Term): boolean {
    return this.#terms.has(termKey(term));
  }

  addAll(terms: Iterable<Term>): void {
    for (const term of terms) this.#terms.set(termKey(term), term);
  }

  values(): Term[] {
    return [...this.#terms.values()];
  }
}

/** A key telling terms apart as RDF does. */
export function termKey(term: Term): string {
  if (term.termType === "Literal") {
    const literal = term as Term & { language: string; datatype: { value: string } };
    return `"${literal.value}"@${literal.language}^^${literal.datatype.value}`;
  }
  return `${term.termType === "BlankNode" ? "_:" : "<"}${term.value}`;
}
