/**
 * Several items' records and whole graphs read together (`TripleStore.readItemGraphs`: the
 * export, indexing, `collectionQuads`), in N-Triples as every item read is
 * (`graph_triples.ts`), a few round trips for a hundred items.
 *
 * A CONSTRUCT answer is one graph, so the item each triple belongs to is written into it:
 * each triple `s p o` of item n comes as two, `s <R:n> _:t` and `_:t p o`, where `_:t` is a
 * blank node the template makes afresh for every solution and `R` a namespace made up for
 * this query (no item data can use it). The records come in the same answer, as
 * `<item> <R:hash> "…"` and the like, so on a store that reads a query from one transaction
 * (Fuseki) each record is the record of the triples beside it. Each item's record is looked
 * up at both keys it may have (`item_records.ts`; only one can hold a record of the
 * collection), so a record written without `rcs:item` is read too; its graph is the one the
 * record names (`rcs:graph`).
 *
 * A store's row cap (Virtuoso: 10,000 triples per answer, in no particular order) would cut
 * such an answer anywhere, so the items' triple counts are looked up first and the items
 * packed into queries whose answers stay under the cap; an item too large for any, or one
 * whose answer still came short (it grew meanwhile), is read on its own by the caller's
 * single-item read, which pages.
 */
import type { Quad, Term } from "n3";
import { DataFactory } from "n3";
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { METADATA_NAMESPACE } from "../sparql_protocol/service_vocabulary.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import type { ItemGraph } from "../store/triple_store.ts";
import { constructEach } from "./graph_triples.ts";
import { RECORD_FIELDS, recordFromRow, recordKeys } from "./item_records.ts";

/** Items per look-up of counts: short enough a query, few enough round trips. */
export const GRAPHS_PER_QUERY = 100;
/**
 * Most triples of one answer on a store without a row cap: bounds what the store and the
 * service hold for one query (about half as many item triples).
 */
const MAX_ANSWER_TRIPLES = 100_000;
/** Triples an item's record takes in an answer. */
const RECORD_TRIPLES = RECORD_FIELDS.length;

/** What a batch read needs of the store. */
export interface BatchReadContext {
  client: SparqlHttpClient;
  /** The metadata graph, as SPARQL. */
  meta: string;
  /** Most triples the store answers a query with, when it has a cap. */
  rowCap?: number;
  /** One item read whole (paged if need be); undefined when the collection lacks it. */
  readAlone(uri: string): Promise<ItemGraph | undefined>;
}

/** The items of `uris` that `collection` holds, each whole and one version. */
export async function readItemGraphs(
  context: BatchReadContext,
  collection: string,
  uris: string[],
): Promise<ItemGraph[]> {
  const budget = Math.min(MAX_ANSWER_TRIPLES, (context.rowCap ?? Infinity) - 1);
  const graphs = new Map<string, ItemGraph>();
  const alone: string[] = [];
  for (let start = 0; start < uris.length; start += GRAPHS_PER_QUERY) {
    const counts = await tripleCounts(
      context,
      collection,
      uris.slice(start, start + GRAPHS_PER_QUERY),
    );
    for (const chunk of packed(counts, budget)) {
      if (chunk.length === 1 && answerTriples(counts.get(chunk[0])!) > budget) {
        alone.push(chunk[0]);
        continue;
      }
      const read = await readChunk(context, collection, chunk);
      for (const uri of chunk) {
        const graph = read.get(uri);
        // Short or missing: cut by a row cap after it grew, or deleted meanwhile.
        if (graph && graph.quads.length === graph.record.tripleCount) graphs.set(uri, graph);
        else alone.push(uri);
      }
    }
  }
  for (const uri of alone) {
    const graph = await context.readAlone(uri);
    if (graph) graphs.set(uri, graph);
  }
  return uris.flatMap((uri) => graphs.get(uri) ?? []);
}

/** Triples of an item's share of an answer: two per triple, and its record. */
function answerTriples(count: number): number {
  return 2 * count + RECORD_TRIPLES;
}

/** The triple count of each item of `uris` that `collection` holds. */
async function tripleCounts(
  context: BatchReadContext,
  collection: string,
  uris: string[],
): Promise<Map<string, number>> {
  const rows = await selectRows(
    context.client,
    `SELECT ?item ?count WHERE { VALUES (?item ?key) { ${
      uris.flatMap((uri) => withKeys(collection, uri, "")).join(" ")
    } }
       GRAPH ${context.meta} { ?key rcs:collection ${
      stringToSparql(collection)
    } ; rcs:tripleCount ?count } }`,
  );
  const counts = new Map<string, number>();
  for (const row of rows) {
    const item = row.get("item")?.value;
    if (item !== undefined) counts.set(item, Number(row.get("count")?.value ?? 0));
  }
  return counts;
}

/** The items in runs whose answers fit `budget` triples (an item larger than it alone). */
function* packed(counts: Map<string, number>, budget: number): Generator<string[]> {
  let chunk: string[] = [];
  let size = 0;
  for (const [uri, count] of counts) {
    const triples = answerTriples(count);
    if (chunk.length > 0 && size + triples > budget) {
      yield chunk;
      [chunk, size] = [[], 0];
    }
    chunk.push(uri);
    size += triples;
  }
  if (chunk.length > 0) yield chunk;
}

/** `VALUES` rows of the item `uri`: one per key it may have, each ending with `tail`. */
function withKeys(collection: string, uri: string, tail: string): string[] {
  return recordKeys(collection, uri).map((key) => `(${iriToSparql(uri)} ${key}${tail})`);
}

/** One query's items: their records and graphs as the answer holds them (see the module). */
async function readChunk(
  context: BatchReadContext,
  collection: string,
  uris: string[],
): Promise<Map<string, ItemGraph>> {
  const read = `${METADATA_NAMESPACE}read:${crypto.randomUUID()}:`;
  const values = uris.flatMap((uri, n) => withKeys(collection, uri, ` <${read}${n}>`))
    .join(" ");
  const inCollection = `GRAPH ${context.meta} { ?key rcs:collection ${
    stringToSparql(collection)
  } ; rcs:graph ?g }`;
  // Each branch binds its items itself: no store has to carry VALUES into a UNION.
  const query = `CONSTRUCT {
      ?item <${read}hash> ?hash ; <${read}count> ?count ; <${read}created> ?created ;
        <${read}modified> ?modified .
      ?s ?link _:t . _:t ?p ?o }
    WHERE {
      { VALUES (?item ?key ?link) { ${values} } ${inCollection}
        GRAPH ${context.meta} { ?key rcs:hash ?hash ; rcs:tripleCount ?count ;
          rcs:created ?created ; rcs:modified ?modified } }
      UNION { VALUES (?item ?key ?link) { ${values} } ${inCollection} GRAPH ?g { ?s ?p ?o } } }`;
  const fields = new Map<string, SparqlRow>();
  /** Statement node → the item (its index) and the triple's subject. */
  const links = new Map<string, { item: number; subject: Term }>();
  /** Statement node → the triple's predicate and object. */
  const bodies = new Map<string, Quad>();
  await constructEach(context.client, query, (quad) => {
    const predicate = quad.predicate.value;
    if (!predicate.startsWith(read)) {
      bodies.set(quad.subject.value, quad);
      return;
    }
    const name = predicate.slice(read.length);
    if (/^\d+$/.test(name)) {
      links.set(quad.object.value, { item: Number(name), subject: quad.subject });
    } else {
      let row = fields.get(quad.subject.value);
      if (!row) fields.set(quad.subject.value, row = new Map());
      row.set(name, quad.object);
    }
  });
  const graphs = new Map<string, ItemGraph>();
  for (const [uri, row] of fields) {
    // A record the answer holds only part of was cut: the item is read again.
    if (RECORD_FIELDS.every((field) => row.has(field))) {
      graphs.set(uri, { record: recordFromRow(collection, uri, row), quads: [] });
    }
  }
  for (const [node, link] of links) {
    const body = bodies.get(node);
    const graph = graphs.get(uris[link.item]);
    if (!body || !graph) continue; // the other half was cut: the item comes up short
    graph.quads.push(
      DataFactory.quad(
        link.subject as Quad["subject"],
        body.predicate,
        body.object,
      ),
    );
  }
  return graphs;
}
