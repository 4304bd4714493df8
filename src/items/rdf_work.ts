/**
 * Where the CPU-heavy steps of a write run: parsing bodies and import blocks, and the
 * RDFC-1.0 hash (also the hash operation's). With workers (`service.workers.count`, 0 by
 * default) they run in a pool of worker threads (`worker_pool.ts`, `rdf_worker.ts`), so that
 * the request thread only does HTTP, routing and the store call; with 0 they run on the
 * request thread.
 *
 * A body parsed for a write is hashed in the same task. The hash is remembered for the very
 * array of quads handed back, so that the item service's hash of that graph answers at once
 * instead of sending it to a worker again.
 *
 * A write that is the only one in progress, with every worker idle, is parsed on the
 * request thread: nothing would run beside it, and the trip to a worker and back would only
 * add to its latency (measured: about 1 ms on a loaded 2-core machine, a quarter of a PUT).
 */
import type { Quad } from "n3";
import type { RdfFormat } from "../rdf/formats.ts";
import { parseRdf, type ParseResult } from "../rdf/parse.ts";
import { fromWire, toWire } from "../rdf/quad_wire.ts";
import { type BlockItem, blockItem } from "../rdf/block_item.ts";
import type { BulkFormat, GraphBlock } from "../rdf/graph_blocks.ts";
import { type RunOptions, WorkerPool } from "./worker_pool.ts";
import type { CanonicalHash } from "../rdf/canonical_hash.ts";
import {
  bodyHash,
  graphHash,
  itemHash,
  type RdfTask,
  type RdfTaskResult,
  type RdfTaskSetup,
} from "./rdf_tasks.ts";

/** How the RDF work is set up. */
export interface RdfWorkOptions extends RdfTaskSetup {
  /** Worker threads; 0 runs everything on the calling thread. */
  workers: number;
  /** Tasks that may wait for a worker (see `WorkerPool`). */
  maxQueue: number;
}

/** Options of {@link RdfWork.parse}. */
export interface BodyParseOptions {
  baseIri?: string;
  /** The body is an item's graph: hash it in the same task. */
  item?: boolean;
}

/** The RDF work of writes, on workers or inline; see the module comment. */
export class RdfWork {
  readonly #setup: RdfTaskSetup;
  readonly #pool?: WorkerPool<RdfTask, RdfTaskResult>;
  /** Hashes computed ahead, by the array of quads they are the hash of. */
  readonly #known = new WeakMap<readonly Quad[], string>();
  /** Writes in progress (see {@link writing}). */
  #writes = 0;

  constructor(options: RdfWorkOptions) {
    this.#setup = { contexts: options.contexts, maxWorkFactor: options.maxWorkFactor };
    if (options.workers > 0) {
      this.#pool = new WorkerPool({
        url: new URL("./rdf_worker.ts", import.meta.url),
        size: options.workers,
        maxQueue: options.maxQueue,
        init: this.#setup,
        name: "rdf",
      });
    }
  }

  /** Worker threads (0: the work runs on the calling thread). */
  get workers(): number {
    return this.#pool?.size ?? 0;
  }

  /** Runs one item write, counted: a write alone parses on the calling thread. */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.#writes++;
    try {
      return await write();
    } finally {
      this.#writes--;
    }
  }

  /** Parses a request body (`parseRdf`'s errors). */
  async parse(
    text: string,
    format: RdfFormat | "json",
    options: BodyParseOptions = {},
  ): Promise<ParseResult> {
    if (!this.#pool || (this.#writes <= 1 && this.#pool.idle)) {
      const parsed = await parseRdf(text, format, {
        contexts: this.#setup.contexts,
        baseIri: options.baseIri,
      });
      if (options.item) this.#remember(parsed.quads, await itemHash(parsed.quads, this.#setup));
      return parsed;
    }
    const result = await this.#pool.run({
      op: "parse",
      text,
      format,
      baseIri: options.baseIri,
      hashItem: options.item === true,
    }) as { quads: string[]; format: RdfFormat; hash?: string };
    return { quads: this.#remember(fromWire(result.quads), result.hash), format: result.format };
  }

  /**
   * An import block's item (`blockItem`'s errors), hashed ahead. An import bounds its own
   * blocks in flight, so it waits for room in the queue rather than being refused.
   */
  async blockItem(
    block: GraphBlock,
    format: BulkFormat,
    baseIri: string | undefined,
  ): Promise<BlockItem> {
    if (!this.#pool) {
      const item = await blockItem(block, format, baseIri);
      this.#remember(item.quads, await itemHash(item.quads, this.#setup));
      return item;
    }
    const waiting: RunOptions = { wait: true };
    const result = await this.#pool.run({ op: "block", block, format, baseIri }, waiting) as {
      uri: string;
      quads: string[];
      hash?: string;
    };
    return { uri: result.uri, quads: this.#remember(fromWire(result.quads), result.hash) };
  }

  /** The items' hash of `quads` (SHA-256 over RDFC-1.0); 422 `canonicalization-limit`. */
  async hash(quads: Quad[]): Promise<string> {
    const known = this.#known.get(quads);
    if (known !== undefined) return known;
    if (!this.#pool) return await graphHash(quads, this.#setup);
    const result = await this.#pool.run({ op: "hash", quads: toWire(quads) }) as {
      hash: string;
    };
    return result.hash;
  }

  /**
   * The hash operation's answer for a body (`parseRdf`'s and the hash's errors): parsed and
   * hashed in one task, so a large body's quads never cross back.
   */
  async hashBody(
    text: string,
    format: RdfFormat | "json",
    baseIri: string | undefined,
  ): Promise<CanonicalHash> {
    if (!this.#pool) return await bodyHash(text, format, baseIri, this.#setup);
    return await this.#pool.run({ op: "hashBody", text, format, baseIri }) as CanonicalHash;
  }

  /** Tasks running and waiting (0 and 0 without workers). */
  stats() {
    return this.#pool?.stats() ?? { size: 0, running: 0, queued: 0, done: 0 };
  }

  /** Stops the workers. */
  close(): void {
    this.#pool?.close();
  }

  #remember(quads: Quad[], hash: string | undefined): Quad[] {
    if (hash !== undefined) this.#known.set(quads, hash);
    return quads;
  }
}
