/**
 * Bulk export: every item of some collections as one N-Quads or TriG document, streamed.
 *
 * Order: collections in the order given (a workspace's in configuration order), items by
 * URI (code point order, as the store lists them), each item's lines in code point order
 * (subjects together). Items are read a page at a time (`readItemGraphs`), so memory holds
 * one page whatever the collection's size. Each item's graph is named by its URI; blank
 * node labels get the item's position as a prefix, since both syntaxes scope labels to the
 * whole document.
 */
import type { Quad, Term } from "n3";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import { encodeIri, encodeTerm } from "../rdf/writers/ntriples.ts";
import { portableBlankLabel } from "../rdf/writers/blank_labels.ts";
import type { BulkFormat } from "../rdf/graph_blocks.ts";

/** Items read from the store at once. */
const PAGE_SIZE = 100;

/** The document, a piece (one page of items) at a time. */
export async function* exportDocument(
  store: TripleStore,
  collections: string[],
  format: BulkFormat,
): AsyncIterable<string> {
  let position = 0;
  for (const collection of collections) {
    for await (const page of pages(store.listItems(collection), PAGE_SIZE)) {
      const graphs = await store.readItemGraphs(collection, page.map((record) => record.uri));
      const byUri = new Map(graphs.map((graph) => [graph.record.uri, graph.quads]));
      let text = "";
      for (const record of page) {
        const quads = byUri.get(record.uri);
        if (!quads) continue; // deleted since it was listed
        text += itemText(record.uri, quads, format, `i${position++}_`);
      }
      if (text) yield text;
    }
  }
}

/** One item: a TriG graph block, or its N-Quads lines. */
function itemText(uri: string, quads: Quad[], format: BulkFormat, prefix: string): string {
  const term = (t: Term) =>
    t.termType === "BlankNode" ? `_:${prefix}${portableBlankLabel(t.value)}` : encodeTerm(t);
  const graph = encodeIri(uri);
  // Sorted whole lines: subjects together, and the same order whatever order the store
  // answered in (Virtuoso's CONSTRUCT order varies from one read to the next).
  const triples = quads.map((q) => `${term(q.subject)} ${term(q.predicate)} ${term(q.object)}`)
    .sort(byCodePoint);
  if (format === "nquads") return triples.map((t) => `${t} ${graph} .\n`).join("");
  return `${graph} {\n${triples.map((t) => `  ${t} .\n`).join("")}}\n`;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function* pages(
  records: AsyncIterable<ItemRecord>,
  size: number,
): AsyncIterable<ItemRecord[]> {
  let page: ItemRecord[] = [];
  for await (const record of records) {
    page.push(record);
    if (page.length >= size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
