/**
 * The complete SPARQL 1.1 engine for what `sparql_to_sql.ts` does not compile: oxigraph
 * (WebAssembly), run over a fresh in-memory store that holds only the quads the query can
 * touch, read from the quad tables' indexes, and dropped after the query.
 *
 * A query's answer depends only on the quads that match one of its triple patterns (a
 * pattern's constants select them), so loading those gives the answer over the whole
 * store. Where that does not hold, everything is loaded: a pattern with a variable
 * predicate and nothing else bound, a negated or zero-length path between two variables
 * (they range over every node), `GRAPH ?g {}` (every graph name), `DESCRIBE ?x`. A
 * `DESCRIBE <iri>` loads the whole graphs that describe the IRI (its blank nodes live there).
 * At most {@link FALLBACK_QUAD_LIMIT} quads are loaded: a query that needs more is refused
 * (unprocessable `query-too-broad`), so memory stays bounded whatever the store holds.
 *
 * A query scope (the collections a caller may read) loads only quads of those collections'
 * item graphs, whatever the plan: the in-memory store then holds no other graph, so the
 * query's FROM, FROM NAMED, protocol dataset or `GRAPH <g>` naming one finds a graph that
 * does not exist, `GRAPH ?g` and the union default graph range over the scope only, and the
 * limit counts the scope's quads.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import type { DatabaseSync } from "node:sqlite";
import { DomainError } from "../errors/domain_error.ts";
import { encodeConstant } from "./term_ids.ts";
import { termColumn, termText } from "./term_dictionary.ts";
import type { TermLookup } from "./sparql_to_sql.ts";
import { nquadsTerm } from "./nquads_term.ts";
import { TagSpellings } from "../rdf/language_tags.ts";
import { type StoredLiterals, surrogateOf } from "./literal_forms.ts";
import { COLLECTIONS_GRAPH } from "../sparql_protocol/collections_graph.ts";

/** Most quads one fallback query may load (oxigraph holds about 330 bytes per quad). */
export const FALLBACK_QUAD_LIMIT = 1_000_000;

/** Quads matching given ids at given positions; an empty request is every quad. */
type Request = { s?: number; p?: number; o?: number; describes?: number };

/** What to load for a query: requests, or everything. */
export interface LoadPlan {
  everything: boolean;
  /** The query has a `GRAPH` (anywhere): the quads go into their named graphs too. */
  readsNamedGraphs?: boolean;
  requests: Request[];
  /**
   * Only quads of the item graphs of these collections (an empty list: none); undefined,
   * every graph.
   */
  scope?: readonly string[];
  /**
   * Where the loaded quads go. `union`: their triples into the default graph, which is a set
   * (a triple stated in several items is there once, as the union default graph of the SQL
   * path and of a SPARQL store), and into their named graphs only when the query has a
   * `GRAPH`. A dataset (the query's FROM and FROM NAMED, taken out of it): the triples of
   * the `default` graphs into the default graph (their RDF merge, a set), the quads of the
   * `named` graphs into their named graphs, nothing else.
   */
  graphs: "union" | Dataset;
}

/** A query's dataset: the IRIs of its FROM graphs and of its FROM NAMED graphs. */
export interface Dataset {
  default: string[];
  named: string[];
}

type Term = sparqljs.Term;

/** The quads `query` can touch, inside `scope` when one is given (see {@link LoadPlan}). */
export function planLoad(
  query: sparqljs.SparqlQuery,
  lookUp: TermLookup,
  scope?: readonly string[],
  graphs: LoadPlan["graphs"] = "union",
): LoadPlan {
  const plan: LoadPlan = { everything: false, requests: [], scope, graphs };
  const id = (term: Term | undefined): number | undefined | null => {
    if (!term || term.termType === "Variable" || term.termType === "BlankNode") return undefined;
    if (term.termType !== "NamedNode" && term.termType !== "Literal") return undefined;
    // null: a constant no quad holds, so the pattern loads nothing.
    return lookUp(encodeConstant(term)) ?? null;
  };
  const visit = (node: unknown): void => {
    if (plan.everything || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const record = node as Record<string, unknown>;
    if ("subject" in record && "predicate" in record && "object" in record) {
      triple(record as unknown as sparqljs.Triple);
    }
    if (record.type === "graph") {
      // The collections graph is made apart (collection_datasets.ts): nothing to load for it.
      const name = record.name as { termType?: string; value?: string } | undefined;
      if (name?.termType === "NamedNode" && name.value === COLLECTIONS_GRAPH) return;
      if (!containsTriple(record.patterns)) plan.everything = true;
    }
    for (const value of Object.values(record)) visit(value);
  };
  const triple = (pattern: sparqljs.Triple) => {
    const predicate = pattern.predicate as Term | sparqljs.PropertyPath;
    const [s, o] = [id(pattern.subject as Term), id(pattern.object as Term)];
    if ("type" in predicate) {
      const iris: Term[] = [];
      if (pathNeedsEverything(predicate, iris, s === undefined && o === undefined)) {
        plan.everything = true;
      }
      for (const iri of iris) {
        const p = id(iri);
        if (p !== null) plan.requests.push({ p });
      }
      return;
    }
    const p = id(predicate);
    if (s === null || p === null || o === null) return;
    if (s === undefined && p === undefined && o === undefined) plan.everything = true;
    else plan.requests.push({ s, p, o });
  };
  const where = query.type === "query" ? query.where ?? [] : [];
  visit(where);
  // Apart from the visit, which stops once everything is to be loaded.
  plan.readsNamedGraphs = JSON.stringify(where).includes('"type":"graph"');
  if (query.type === "query" && query.queryType === "DESCRIBE") {
    for (const described of query.variables as (Term | { termType: "Wildcard" })[]) {
      if (described.termType === "NamedNode") {
        const subject = id(described);
        if (subject !== null && subject !== undefined) plan.requests.push({ describes: subject });
      } else plan.everything = true;
    }
  }
  return plan;
}

function containsTriple(patterns: unknown): boolean {
  return JSON.stringify(patterns ?? []).includes('"subject"');
}

/**
 * Collects a path's IRIs into `iris`; true when it can reach beyond them: a negated set
 * (any other predicate), or a zero-length step between two variables (every node).
 */
function pathNeedsEverything(
  path: sparqljs.PropertyPath | Term,
  iris: Term[],
  openEnds: boolean,
): boolean {
  if (!("type" in path)) {
    iris.push(path);
    return false;
  }
  if (path.pathType === "!") return true;
  if (openEnds && (path.pathType === "*" || path.pathType === "?")) return true;
  let needs = false;
  for (const item of path.items) {
    needs = pathNeedsEverything(item as sparqljs.PropertyPath | Term, iris, openEnds) || needs;
  }
  return needs;
}

/** A loaded quad's graph, subject, predicate and object texts. */
type QuadRow = [string, string, string, string | Uint8Array];

/** The planned quads as N-Quads text, and how many objects were written as surrogates. */
export interface LoadedQuads {
  nquads: string;
  surrogates: number;
  /** The typed literals among the objects, and those of them written as surrogates. */
  literals: StoredLiterals;
  /** The objects' language tags written with upper-case letters (oxigraph lower-cases). */
  tags: string[];
}

/**
 * The planned quads as N-Quads text; unprocessable `query-too-broad` beyond `limit`. The
 * objects `altered` picks out (literals the engine would not keep as written) are written
 * as their surrogates (`literal_forms.ts`).
 */
export function loadQuads(
  db: DatabaseSync,
  plan: LoadPlan,
  limit = FALLBACK_QUAD_LIMIT,
  altered?: (objects: Iterable<string>) => ReadonlySet<string>,
): LoadedQuads {
  const nothing: LoadedQuads = {
    nquads: "",
    surrogates: 0,
    literals: { altered: new Set(), typed: new Set() },
    tags: [],
  };
  if (!plan.everything && plan.requests.length === 0) return nothing;
  const { scope } = plan;
  if (scope?.length === 0) return nothing;
  const conditions = plan.everything ? ["1"] : plan.requests.map(condition);
  // The scope as the compiled queries keep it (sparql_to_sql.ts): an item of the quad's
  // graph in one of the collections, probed by items(graph, collection) from the requests'
  // rows, or, for every quad, the scope's graphs read by items(collection, graph).
  const scoped = scope
    ? `JOIN items i ON i.graph = q.g AND i.collection IN (${
      scope.map((_, i) => `?${i + 1}`).join(", ")
    })`
    : "";
  const statement = db.prepare(
    `SELECT tg.term, ts.term, tp.term, ${termColumn("t_o.term")}
     FROM quads q ${scoped} JOIN terms tg ON tg.id = q.g JOIN terms ts ON ts.id = q.s
       JOIN terms tp ON tp.id = q.p JOIN terms t_o ON t_o.id = q.o
     WHERE ${conditions.map((c) => `(${c})`).join(" OR ")} LIMIT ${limit + 1}`,
  );
  statement.setReturnArrays(true);
  const rows = statement.all(...(scope ?? [])) as unknown as QuadRow[];
  if (rows.length > limit) {
    throw new DomainError("query-too-broad", {
      detail:
        `Answering this query would need more than ${limit} quads in memory (a pattern with ` +
        "few bound terms, a FILTER or another form the embedded engine evaluates in memory). " +
        "Bind more of its terms, or move to a SPARQL store (see docs/backends.md).",
    });
  }
  const dataset = plan.graphs === "union" ? undefined : plan.graphs;
  // Sets: a collection named as a dataset brings all its item graphs.
  const defaults = dataset && new Set(dataset.default);
  const named = dataset && new Set(dataset.named);
  const inDefault = defaults ? (graph: string) => defaults.has(graph) : () => true;
  const inNamed = named
    ? (graph: string) => named.has(graph)
    : () => plan.readsNamedGraphs === true;
  const objects = rows.map((row) => termText(row[3]));
  const spellings = new TagSpellings();
  for (const object of objects) spellings.noteId(object);
  const typed = new Set(objects.filter(isTypedLiteral));
  const surrogates = altered?.(typed) ?? new Set<string>();
  let text = "";
  let written = 0;
  rows.forEach(([g, s, p], i) => {
    let o = objects[i];
    if (surrogates.has(o)) {
      o = surrogateOf(o);
      written++;
    }
    const triple = `${nquadsTerm(s)} ${nquadsTerm(p)} ${nquadsTerm(o)}`;
    if (inDefault(g)) text += `${triple} .\n`;
    if (inNamed(g)) text += `${triple} ${nquadsTerm(g)} .\n`;
  });
  return {
    nquads: text,
    surrogates: written,
    literals: { altered: surrogates, typed },
    tags: spellings.written(),
  };
}

function isTypedLiteral(id: string): boolean {
  return id.startsWith('"') && id.lastIndexOf("^^") > id.lastIndexOf('"');
}

function condition(request: Request): string {
  if (request.describes !== undefined) {
    return `q.g IN (SELECT g FROM quads WHERE s = ${request.describes})`;
  }
  const parts: string[] = [];
  if (request.s !== undefined) parts.push(`q.s = ${request.s}`);
  if (request.p !== undefined) parts.push(`q.p = ${request.p}`);
  if (request.o !== undefined) parts.push(`q.o = ${request.o}`);
  return parts.join(" AND ") || "1";
}
