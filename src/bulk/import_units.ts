/**
 * The parts of an import's document, in input order: by graph, each graph block
 * (`src/rdf/graph_blocks.ts`), parsed and hashed when read, on the RDF work pool; by subject,
 * each IRI subject's item (`subject_items.ts`). A part is an item to read, or a part refused
 * as it stands.
 */
import type { Quad } from "n3";
import type { RdfWork } from "../items/rdf_work.ts";
import { type BulkFormat, graphBlocks } from "../rdf/graph_blocks.ts";
import { type BlockItem, problemLine } from "../rdf/block_item.ts";
import { subjectItems } from "./subject_items.ts";
import type { ImportRequest } from "./import_job.ts";

/** One part of a document: an item to read, or a part refused as it stands. */
export interface ImportUnit {
  /** The input line it starts on, where the format tells. */
  line?: number;
  /** The item's URI, when a refused part has one. */
  uri?: string | null;
  refused?: { type: string; message: string; count?: number };
  /** By subject, when asked: the document's items the item links to (`subject_items.ts`). */
  links?: ReadonlyMap<string, Quad[]>;
  read(): Promise<BlockItem>;
  /** The input line an error of `read` or the write points at. */
  lineOf(error: unknown): number | undefined;
}

/** A refused part's `read`: it has no item. */
function noItem(): Promise<BlockItem> {
  return Promise.reject(new Error("a refused part has no item"));
}

/** What reading the parts needs from the runner's options. */
export interface UnitOptions {
  /** Parses and hashes the blocks, on worker threads when it has them. */
  rdfWork: RdfWork;
  /** The largest item, in bytes (`service.http.maxBodyBytes`). */
  maxItemBytes: number;
  /** Local copies of remote JSON-LD contexts, for JSON-LD imported by subject. */
  jsonldContexts?: Record<string, unknown>;
  /** By subject: give each item the document's items it links to (SHACL context). */
  withLinks?: boolean;
}

/**
 * The document's items (or refused parts), by graph or by subject, in input order;
 * `onBodyRead` is called once the body has been read whole, where that comes before the first
 * item (by subject).
 */
export async function* importUnits(
  text: AsyncIterable<string>,
  request: ImportRequest,
  options: UnitOptions,
  onBodyRead: () => void,
): AsyncIterable<ImportUnit> {
  if ((request.itemsBy ?? "graph") === "subject") {
    const units = subjectItems(text, request.format, {
      // The whole body is read before the first item: answer then, not after the writes.
      onRead: onBodyRead,
      base: request.base,
      maxItemBytes: options.maxItemBytes,
      contexts: options.jsonldContexts,
      graphs: request.graphs,
      withLinks: options.withLinks,
    });
    for await (const unit of units) {
      const { item } = unit;
      yield item
        ? { read: () => Promise.resolve(item), links: unit.links, lineOf: () => undefined }
        : { uri: unit.uri, refused: unit.refused, read: noItem, lineOf: () => undefined };
    }
    return;
  }
  const format = request.format as BulkFormat;
  const blocks = graphBlocks(text, format, { maxBlockChars: options.maxItemBytes });
  for await (const block of blocks) {
    yield {
      line: block.line,
      refused: block.refused,
      read: () => options.rdfWork.blockItem(block, format, request.base),
      lineOf: (error) => problemLine(error, block),
    };
  }
}
