/**
 * Bulk export: every item of some collections as one N-Quads or TriG document, streamed.
 *
 * Order: collections in the order given (a workspace's in configuration order), items by
 * URI (code point order, as the store lists them), each item's lines in code point order
 * (subjects together). Items are read a page at a time (`readItemGraphs`), so memory holds
 * one page whatever the collection's size. Each item's graph is named by its URI; blank
 * node labels get the item's position as a prefix, since both syntaxes scope labels to the
 * whole document.
 *
 * As of an instant (`asOf`), the items come from the store's history instead
 * (`ItemHistory.stateAt`): each item's newest version written at or before it, in the same
 * order and form; items deleted then, or not yet written then, are left out.
 */
import type { Quad, Term } from "n3";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import type { ItemHistory } from "../store/item_history.ts";
import { DomainError } from "../errors/domain_error.ts";
import { encodeIri, encodeTerm } from "../rdf/writers/ntriples.ts";
import { portableBlankLabel } from "../rdf/writers/blank_labels.ts";
import type { BulkFormat } from "../rdf/graph_blocks.ts";

/** Items read from the store at once. */
const PAGE_SIZE = 100;

/** An item's URI and triples. */
type ExportedItem = { uri: string; quads: Quad[] };

/**
 * The document, a piece (one page of items) at a time; as it stood at `asOf` when given.
 * Throws `history-unsupported` at once (before the first piece) when the store cannot
 * answer for an instant.
 */
export function exportDocument(
  store: TripleStore,
  collections: string[],
  format: BulkFormat,
  asOf?: Date,
): AsyncIterable<string> {
  const source = asOf === undefined
    ? (collection: string) => currentItems(store, collection)
    : pastItems(store.history, asOf);
  return document(collections, format, source);
}

async function* document(
  collections: string[],
  format: BulkFormat,
  source: (collection: string) => AsyncIterable<ExportedItem[]>,
): AsyncIterable<string> {
  let position = 0;
  for (const collection of collections) {
    for await (const page of source(collection)) {
      let text = "";
      for (const item of page) text += itemText(item.uri, item.quads, format, `i${position++}_`);
      if (text) yield text;
    }
  }
}

/** The items as they are, a page at a time. */
async function* currentItems(
  store: TripleStore,
  collection: string,
): AsyncIterable<ExportedItem[]> {
  for await (const page of pages(store.listItems(collection), PAGE_SIZE)) {
    const graphs = await store.readItemGraphs(collection, page.map((record) => record.uri));
    const byUri = new Map(graphs.map((graph) => [graph.record.uri, graph.quads]));
    // An item deleted since it was listed has no graph: left out.
    yield page.flatMap((record) => {
      const quads = byUri.get(record.uri);
      return quads ? [{ uri: record.uri, quads }] : [];
    });
  }
}

/** The items as they stood at `instant`, from the history, a page at a time. */
function pastItems(
  history: ItemHistory | undefined,
  instant: Date,
): (collection: string) => AsyncIterable<ExportedItem[]> {
  const stateAt = history?.stateAt?.bind(history);
  if (!stateAt) {
    throw new DomainError("history-unsupported", {
      detail: "An export as of a time reads the item history, which this store " +
        (history ? "cannot read by instant yet." : "does not keep."),
      errors: [{ path: "asOf", message: "needs item history" }],
    });
  }
  return async function* (collection) {
    let after: string | undefined;
    while (true) {
      const page = await stateAt(collection, instant, { after, limit: PAGE_SIZE });
      yield page.versions.map((content) => ({ uri: content.version.uri, quads: content.quads }));
      if (page.last === undefined) return;
      after = page.last;
    }
  };
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
