/**
 * How a write's triples get into its graph: written out in the update when few, or put into
 * a staging graph of its own first (Graph Store Protocol) and copied into place by the
 * update with a pattern (`GRAPH <staging> { ?s ?p ?o }`), so the request stays small
 * whatever the item's size (Virtuoso compiles triples written out into SQL text and fails
 * above about 1,400).
 *
 * Terms are stored as written only if the dataset keeps lexical forms: Fuseki's in-memory
 * dataset does; TDB2 and Virtuoso store numbers, booleans and dates as values ("042" comes
 * back "42", "1.0E0"^^xsd:double comes back "1.0" from Virtuoso). The capability check finds
 * out; on such a store a write with typed literals is staged, read back, and its record
 * carries the hash of what the store gave back, so a body read after a cache miss always
 * hashes to its ETag. Hashing what the store returns, rather than a model of each store's
 * canonical forms, is right by construction for any store (Virtuoso's forms are not XSD's),
 * provided the read-back and every read of the item take the same answer format: a store's
 * formats need not agree (Virtuoso's JSON results write a boolean "1", its N-Triples
 * "true"), so all of them are N-Triples (graph_triples.ts). On a store that keeps forms
 * nothing is read back.
 */
import type { Quad } from "n3";
import { METADATA_NAMESPACE } from "../sparql_protocol/service_vocabulary.ts";
import { iriToSparql, triplesToSparql } from "../sparql_protocol/terms.ts";
import type { ItemWrite } from "../store/triple_store.ts";
import { graphTriples } from "./graph_triples.ts";
import type { StoreContext } from "./store_context.ts";

/** Staging graphs, one per staged write. */
const STAGING_PREFIX = `${METADATA_NAMESPACE}staging:`;
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

/** How a write's triples reach its graph. */
export interface GraphBody {
  /** The hash the record gets: the write's, or that of what the store holds. */
  hash: string;
  count: number;
  /** The triples as reads will serve them (the write's, or what the store holds): a version's graph. */
  quads: readonly Quad[];
  /** The staging graph the triples were put into, if they were. */
  staging?: string;
  /** The operation that fills `graph` when `guard` matches once. */
  insert(graph: string, guard: string): string;
}

/**
 * The write's triples, ready for its update: inline, or staged now (and, on a store that
 * rewrites literal forms, read back as every read of an item reads, and hashed as read).
 * `blankNodePrefix` keeps its blank node labels apart from the other writes of its group.
 */
export async function graphBody(
  context: StoreContext,
  write: ItemWrite,
  blankNodePrefix: string,
): Promise<GraphBody> {
  const { lines, count } = triplesToSparql(write.quads, blankNodePrefix);
  const rewrites = context.capabilities()?.rewritesLiterals === true &&
    hasTypedLiteral(write.quads);
  const limit = context.config.maxInlineTriples;
  if (count <= limit && !rewrites) {
    return {
      hash: write.hash,
      count,
      quads: write.quads,
      insert: (graph, guard) =>
        `INSERT { GRAPH ${graph} {\n${lines.join("\n")}\n} } WHERE { ${guard} }`,
    };
  }
  const staging = `${STAGING_PREFIX}${crypto.randomUUID()}`;
  await context.client.putGraph(staging, lines.join("\n") + "\n");
  let [hash, stored, quads] = [write.hash, count, write.quads as readonly Quad[]];
  if (rewrites) {
    // Two forms of one value ("042" and "42") become one triple: the count is the store's.
    quads = await graphTriples(context.client, staging);
    stored = quads.length;
    hash = context.config.hash ? await context.config.hash(quads as Quad[]) : write.hash;
  }
  return {
    hash,
    count: stored,
    quads,
    staging,
    insert: (graph, guard) =>
      `INSERT { GRAPH ${graph} { ?s ?p ?o } }
      WHERE { ${guard} GRAPH ${iriToSparql(staging)} { ?s ?p ?o } }`,
  };
}

/** Whether any object is a literal with a datatype a store may rewrite (not a string). */
function hasTypedLiteral(quads: Quad[]): boolean {
  return quads.some((quad) =>
    quad.object.termType === "Literal" && quad.object.datatype.value !== XSD_STRING &&
    quad.object.datatype.value !== RDF_LANG_STRING
  );
}
