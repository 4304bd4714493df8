/**
 * The CPU-heavy steps of a write, as tasks a worker thread runs: parsing a body, parsing an
 * import's graph block, and the RDFC-1.0 hash (also of a body the hash operation was sent). Parsing an item's body hashes it at once,
 * in the same task, so a write usually costs one trip to a worker.
 */
import type { Quad } from "n3";
import { type CanonicalHash, canonicalHash } from "../rdf/canonical_hash.ts";
import type { RdfFormat } from "../rdf/formats.ts";
import { parseRdf } from "../rdf/parse.ts";
import { fromWire, toWire, type WireQuads } from "../rdf/quad_wire.ts";
import { isErrorKind } from "../errors/domain_error.ts";
import { blockItem } from "../rdf/block_item.ts";
import type { BulkFormat, GraphBlock } from "../rdf/graph_blocks.ts";

/** What every task of a worker needs, sent once when it starts. */
export interface RdfTaskSetup {
  /** Local copies of remote JSON-LD contexts (`service.jsonld.contexts`). */
  contexts: Record<string, unknown>;
  /** `service.hash.maxWorkFactor`. */
  maxWorkFactor?: number;
}

/** One task. */
export type RdfTask =
  | {
    op: "parse";
    text: string;
    format: RdfFormat | "json";
    baseIri?: string;
    /** Also hash the body as an item's graph (when it is one). */
    hashItem: boolean;
  }
  | { op: "block"; block: GraphBlock; format: BulkFormat; baseIri?: string }
  | { op: "hash"; quads: WireQuads }
  | { op: "hashBody"; text: string; format: RdfFormat | "json"; baseIri?: string };

/** A task's answer. */
export type RdfTaskResult =
  | { quads: WireQuads; format: RdfFormat; hash?: string }
  | { uri: string; quads: WireQuads; hash?: string }
  | { hash: string }
  | CanonicalHash;

/** Runs one task (in a worker: its quads cross the thread boundary as term ids). */
export async function runRdfTask(task: RdfTask, setup: RdfTaskSetup): Promise<RdfTaskResult> {
  switch (task.op) {
    case "parse": {
      const parsed = await parseRdf(task.text, task.format, {
        contexts: setup.contexts,
        baseIri: task.baseIri,
      });
      const hash = task.hashItem ? await itemHash(parsed.quads, setup) : undefined;
      return { quads: toWire(parsed.quads), format: parsed.format, hash };
    }
    case "block": {
      const item = await blockItem(task.block, task.format, task.baseIri);
      return { uri: item.uri, quads: toWire(item.quads), hash: await itemHash(item.quads, setup) };
    }
    case "hash":
      return { hash: await graphHash(fromWire(task.quads), setup) };
    case "hashBody":
      return await bodyHash(task.text, task.format, task.baseIri, setup);
  }
}

/** The hash operation's answer for a body: parsed and hashed where it is, no quads sent back. */
export async function bodyHash(
  text: string,
  format: RdfFormat | "json",
  baseIri: string | undefined,
  setup: RdfTaskSetup,
): Promise<CanonicalHash> {
  const { quads } = await parseRdf(text, format, { contexts: setup.contexts, baseIri });
  return await canonicalHash(quads, { maxWorkFactor: setup.maxWorkFactor });
}

/** The items' hash (their ETag): SHA-256 over the RDFC-1.0 canonical form. */
export async function graphHash(quads: Quad[], setup: RdfTaskSetup): Promise<string> {
  return (await canonicalHash(quads, { maxWorkFactor: setup.maxWorkFactor })).hash;
}

/**
 * The hash the body will have as an item, computed ahead while the body is at hand;
 * undefined when it cannot be an item as it stands (empty, named graphs) or is too complex
 * to hash: the write then hashes the graph it stores itself and refuses it in its order.
 */
export async function itemHash(quads: Quad[], setup: RdfTaskSetup): Promise<string | undefined> {
  if (quads.length === 0 || quads.some((quad) => quad.graph.termType !== "DefaultGraph")) {
    return undefined;
  }
  try {
    return await graphHash(quads, setup);
  } catch (error) {
    if (isErrorKind(error, "unprocessable")) return undefined;
    throw error;
  }
}
