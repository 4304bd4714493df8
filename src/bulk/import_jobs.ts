/**
 * Bulk import jobs: a streamed body read part by part (`import_units.ts`: graph blocks of
 * N-Quads or TriG, or items by subject), each part one item written through the item
 * service (the same checks as a PUT, the store's normal write path, the index outbox),
 * several items in flight at once. It is a pipeline: while the request thread reads blocks
 * and writes items, the worker threads of the RDF work pool parse and hash the blocks ahead
 * (`src/items/rdf_work.ts`), and the store's group commit writes the items in flight
 * together, in one transaction or guarded update.
 *
 * The job record and its single-flight lock (one import per collection) live in the job
 * store (`src/jobs/job_store.ts`) like indexing jobs: shared by every instance on a
 * SPARQL store, run by the same job lifecycle (`src/jobs/job_lifecycle.ts`: claim,
 * heartbeat, sweep for imports lost with their instance, shutdown). `written` counts only items
 * whose write the store acknowledged, so after a crash every item the job reported as
 * written is stored (and its outbox entry with it); the job itself is then marked failed.
 *
 * Nothing is left out without a word: every item ends written, unchanged (there already, the
 * same), skipped (there already, other content, `mode=create`) or refused, each but the
 * first two listed with its reason, and the job's outcome and summary (`import_summary.ts`) say which. The job's
 * record, and how it reads, is `import_job.ts`.
 */
import type { Quad } from "n3";
import { untilStopped } from "./until_stopped.ts";
import { DomainError, isProblem, isSystemFailure } from "../errors/domain_error.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { ItemService } from "../items/item_service.ts";
import type { RdfWork } from "../items/rdf_work.ts";
import { failedJob, INTERRUPTED_MESSAGE, MAX_JOB_ERRORS } from "../jobs/job_store.ts";
import { JobLifecycle, type JobRunnerOptions, type RunningJob } from "../jobs/job_lifecycle.ts";
import { log } from "../log/logger.ts";
import type { BlockItem } from "../rdf/block_item.ts";
import { holdingOf } from "./held_items.ts";
import {
  type ImportError,
  type ImportJob,
  type ImportRequest,
  importRunning,
  inputError,
  nothingImported,
  summarised,
} from "./import_job.ts";
import { type ImportUnit, importUnits } from "./import_units.ts";

// The record's type, for the callers that know imports by their runner.
export type { ImportJob } from "./import_job.ts";

/**
 * Items written at once: concurrent writes are what the store's group commit batches. 32
 * rather than 8 made a SPARQL-store import 1.6× as fast (bigger groups, fewer requests) and
 * cost the embedded store nothing; the items in flight hold well under a megabyte.
 */
export const IMPORT_CONCURRENCY = 32;
/** Tries of one item's write when the store is unavailable or its outcome unknown. */
const WRITE_ATTEMPTS = 4;
/** Pause before the second try; the n-th waits n times as long. */
const WRITE_RETRY_PAUSE_MS = 1000;

/** What the job runner needs, besides what every kind's runner does. */
export interface ImportRunnerOptions extends JobRunnerOptions<ImportJob, never> {
  items: ItemService;
  /** Parses and hashes the blocks, on worker threads when it has them. */
  rdfWork: RdfWork;
  catalog: Catalog;
  /** The largest item, in bytes (`service.http.maxBodyBytes`). */
  maxItemBytes: number;
  /** Local copies of remote JSON-LD contexts, for JSON-LD imported by subject. */
  jsonldContexts?: Record<string, unknown>;
  /** Items written at once ({@link IMPORT_CONCURRENCY}). */
  concurrency?: number;
}

/**
 * An import this instance runs; `stopped` is set when the store no longer holds this
 * instance's claim, or at shutdown, and a read of the body waiting for data gives up then.
 */
type RunningImport = RunningJob<ImportJob, never>;

/** Runs imports (one per collection at a time, across instances) and keeps their history. */
export class ImportJobRunner {
  readonly #options: ImportRunnerOptions;
  readonly #lifecycle: JobLifecycle<ImportJob>;
  /** How a taken IRI's holder is found (`held_items.ts`). */
  readonly #lookup;

  constructor(options: ImportRunnerOptions) {
    this.#options = options;
    this.#lookup = {
      items: options.items,
      hash: (quads: ImportQuads) => options.rdfWork.hash(quads),
    };
    this.#lifecycle = new JobLifecycle(options, {
      name: "import",
      stopReasons: {
        lost: "The job lost its claim in the store (no heartbeat within a lease); start the " +
          "import again with mode=upsert.",
        shutdown: INTERRUPTED_MESSAGE,
      },
    });
  }

  /**
   * Records the job (409 `import-running` while an import of the collection runs on any
   * instance) and starts reading `body`; `bodyRead` settles with the job as it stands when
   * reading has ended (items may still be in flight), `done` with the finished job.
   */
  async start(
    request: ImportRequest,
    body: AsyncIterable<Uint8Array>,
  ): Promise<{ job: ImportJob; bodyRead: Promise<ImportJob>; done: Promise<ImportJob> }> {
    this.#options.catalog.require(request.collection);
    const job: ImportJob = {
      id: crypto.randomUUID(),
      collection: request.collection,
      mode: request.mode,
      format: request.format,
      itemsBy: request.itemsBy ?? "graph",
      ...(request.itemsBy === "subject" ? { graphs: request.graphs ?? "refuse" } : {}),
      state: "running",
      startedAt: new Date().toISOString(),
      finishedAt: null,
      bytesRead: 0,
      items: 0,
      written: 0,
      unchanged: 0,
      skipped: 0,
      existing: 0,
      refused: 0,
      outcome: null,
      summary: "",
      errors: [],
    };
    summarised(job);
    const bodyRead = Promise.withResolvers<ImportJob>();
    let asStarted = job;
    const decision = await this.#lifecycle.start(job, (current) => {
      const run = this.#run(
        current,
        request,
        body,
        () => bodyRead.resolve(summarised(structuredClone(job))),
      );
      asStarted = structuredClone(job); // as its first step leaves it
      return run;
    }, request.collection);
    if (!decision.started) throw importRunning(request.collection, decision.runningJob);
    const done = decision.done.finally(() => bodyRead.resolve(summarised(structuredClone(job))));
    return { job: asStarted, bodyRead: bodyRead.promise, done };
  }

  /** A job by id: this instance's live view, else the record (any instance's). */
  async find(id: string): Promise<ImportJob | undefined> {
    await this.#lifecycle.recovered;
    const current = this.#lifecycle.find(id);
    const job = current ? structuredClone(current.job) : await this.#options.jobs.get(id);
    return job && summarised(job);
  }

  /** The most recent imports of every instance, newest first. */
  async recent(limit: number): Promise<ImportJob[]> {
    await this.#lifecycle.recovered;
    const jobs = await this.#options.jobs.recent(limit);
    return jobs.map((job) => this.#lifecycle.find(job.id)?.job ?? job).map((job) =>
      summarised(structuredClone(job))
    );
  }

  /**
   * Stops reading every running import (each fails, what it wrote stays) and waits, for a
   * sweep in flight too.
   */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  async #run(
    current: RunningImport,
    request: ImportRequest,
    body: AsyncIterable<Uint8Array>,
    onBodyRead: () => void,
  ): Promise<ImportJob> {
    const { job } = current;
    const inFlight = new Set<Promise<void>>();
    const seen = new Map<string, number>(); // item URI → the line its block started on
    const concurrency = this.#options.concurrency ?? IMPORT_CONCURRENCY;
    let failure: string | undefined;
    let failedAt: ImportError | undefined; // the input's error that ended the import
    try {
      const source = untilStopped(body, current.stopping, () => current.stopped);
      const text = decoded(source, job, request.declaredBytes);
      // Units are parsed on several workers at once but checked in input order.
      let previousChecked = Promise.resolve();
      // Shapes that look at linked nodes see the document's items too, wherever they are.
      const withLinks = this.#options.items.shapesReadLinks(request.collection);
      const units = importUnits(text, request, { ...this.#options, withLinks }, onBodyRead);
      for await (const unit of units) {
        if (current.stopped) break;
        job.items++;
        const turn = previousChecked;
        const checked = Promise.withResolvers<void>();
        previousChecked = checked.promise;
        const order = { turn, done: checked.resolve };
        const write = this.#importBlock(job, request, unit, seen, order).catch((error) => {
          failure ??= messageOf(error); // the store failed: stop reading
        });
        inFlight.add(write);
        void write.finally(() => inFlight.delete(write));
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
        if (failure) break;
      }
    } catch (error) {
      failure = current.stopped ?? messageOf(error);
      if (!current.stopped) failedAt = inputError(error);
    }
    onBodyRead();
    await Promise.allSettled(inFlight);
    failure ??= current.stopped;
    // An import that wrote nothing is no success, unless every item was there already.
    if (failure === undefined && job.written === 0 && job.unchanged === 0) {
      failure = nothingImported(job);
    }
    const now = new Date().toISOString();
    const ended = failure === undefined
      ? { ...job, state: "succeeded" as const, finishedAt: now }
      : failedJob(job, failure, now);
    // The error that ended it, with its type and line, where the input was at fault.
    const last = ended.errors.at(-1);
    if (failedAt && last?.item === null && last.message === failure) Object.assign(last, failedAt);
    Object.assign(job, summarised(ended));
    await this.#lifecycle.save(current);
    if (failure) log("warn", "import failed", { job: job.id, error: failure });
    return structuredClone(job);
  }

  /**
   * Writes one block's item, or records why not. Throws only when the store fails. The
   * block is parsed and hashed at once (on a worker); its refusal, or whether its graph was
   * met before, is settled in `order.turn`, after every earlier block's, then `order.done`
   * is called.
   */
  async #importBlock(
    job: ImportJob,
    request: ImportRequest,
    block: ImportUnit,
    seen: Map<string, number>,
    order: { turn: Promise<void>; done: () => void },
  ): Promise<void> {
    if (block.refused) {
      await order.turn; // its refusal is listed after the earlier units' ones
      order.done();
      return this.#refuse(job, { item: block.uri ?? null, line: block.line, ...block.refused });
    }
    let uri: string | null = null;
    let item: BlockItem | undefined;
    try {
      const parsing = block.read();
      parsing.catch(() => {}); // awaited below, after the earlier units' turn
      try {
        await order.turn;
        item = await parsing;
        uri = item.uri;
        // By subject, each URI comes once by construction (and is not kept: memory stays flat).
        const earlier = block.line === undefined ? undefined : seen.get(uri);
        if (earlier !== undefined) {
          throw new DomainError("graph-not-contiguous", {
            detail:
              `The graph <${uri}> started at line ${earlier} already; a graph's triples must ` +
              "be in one block (TriG) or on consecutive lines (N-Quads). This part is not " +
              "imported.",
          });
        }
        if (block.line !== undefined) seen.set(uri, block.line);
      } finally {
        order.done();
      }
      const written = await this.#write(request, uri, item.quads, block.links);
      if (written === true) job.written++;
      else await this.#found(job, request, item, block.line, written);
    } catch (error) {
      if (!(error instanceof DomainError) || isSystemFailure(error)) throw error;
      const refusal: ImportError = {
        item: uri,
        line: block.lineOf(error),
        type: error.slug,
        message: withFirstDetail(error),
      };
      this.#refuse(job, refusal);
    }
  }

  /**
   * `mode=create` met an item with the IRI: unchanged when the collection holds the same
   * graph, skipped when other content.
   */
  async #found(
    job: ImportJob,
    request: ImportRequest,
    item: BlockItem,
    line: number | undefined,
    refusal?: unknown,
  ): Promise<void> {
    const holding = await holdingOf(this.#lookup, request.collection, item.uri, item.quads);
    if (holding.where === "here" && holding.same) {
      job.unchanged++;
      return;
    }
    if (holding.where === "here") {
      job.skipped++;
      return this.#record(job, {
        item: item.uri,
        line,
        type: "item-exists",
        message: "The collection holds this item with other content; mode=create leaves it " +
          "as it is (mode=upsert replaces it).",
        collection: request.collection,
      });
    }
    // Deleted since the store refused the write: the store's words.
    this.#refuse(job, {
      item: item.uri,
      line,
      type: "item-exists",
      message: refusal instanceof Error ? refusal.message : "The IRI names an item already.",
    });
  }

  /**
   * Writes the item as the mode says; the store's `item-exists` when `mode=create` finds the
   * IRI taken (which the caller sorts out: `#found`). A write the
   * store did not take (`store-unavailable`) or could not confirm (`write-outcome-unknown`:
   * a stalled store, say) is made again, after a pause, up to {@link WRITE_ATTEMPTS} times,
   * so that a store's pause of a few tens of seconds does not end an import; every mode's
   * write is safe to repeat (a create made again: `WriteOptions.again` in item_service.ts).
   */
  async #write(
    request: ImportRequest,
    uri: string,
    quads: ImportQuads,
    links?: ReadonlyMap<string, Quad[]>,
  ): Promise<true | DomainError> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#writeOnce(request, uri, quads, { again: attempt > 1, links });
      } catch (error) {
        const transient = isProblem(error, "write-outcome-unknown") ||
          isProblem(error, "store-unavailable");
        if (!transient || attempt >= WRITE_ATTEMPTS) throw error;
        log("warn", "import write not confirmed by the store; writing it again", {
          item: uri,
          attempt,
          error: messageOf(error),
        });
        await new Promise((resolve) => setTimeout(resolve, WRITE_RETRY_PAUSE_MS * attempt));
      }
    }
  }

  async #writeOnce(
    request: ImportRequest,
    uri: string,
    quads: ImportQuads,
    { again, links }: { again: boolean; links?: ReadonlyMap<string, Quad[]> },
  ): Promise<true | DomainError> {
    const { items } = this.#options;
    const { collection, mode } = request;
    const bulk = { bulk: true, again, linkedInDocument: links, principal: request.principal };
    if (mode === "replace") {
      await items.update(collection, uri, quads, undefined, bulk);
      return true;
    }
    if (mode === "upsert") {
      try {
        await items.update(collection, uri, quads, undefined, bulk);
        return true;
      } catch (error) {
        if (!isProblem(error, "item-not-found")) throw error;
      }
    }
    try {
      await items.create(collection, uri, quads, bulk);
      return true;
    } catch (error) {
      if (mode === "create" && isProblem(error, "item-exists")) return error;
      throw error;
    }
  }

  #refuse(job: ImportJob, error: ImportError): void {
    job.refused += error.count ?? 1;
    // A part that stands for several (`count`) was met as one unit: `items` counts them all.
    job.items += (error.count ?? 1) - 1;
    this.#record(job, error);
  }

  /** Lists the error; one like it (same type and message, no item) is counted instead. */
  #record(job: ImportJob, error: ImportError): void {
    if (error.item === null) {
      const same = job.errors.find((listed) =>
        listed.item === null && listed.type === error.type && listed.message === error.message
      );
      if (same) {
        same.count = (same.count ?? 1) + (error.count ?? 1);
        return;
      }
    }
    if (job.errors.length < MAX_JOB_ERRORS) job.errors.push(error);
  }
}

type ImportQuads = Parameters<ItemService["create"]>[2];

/** The body as text, counting bytes into the job; 400 on bad UTF-8 or a short body. */
async function* decoded(
  body: AsyncIterable<Uint8Array>,
  job: ImportJob,
  declaredBytes: number | undefined,
): AsyncIterable<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of body) {
      job.bytesRead += chunk.byteLength;
      yield decoder.decode(chunk, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (error instanceof TypeError) {
      throw new Error(`The body is not UTF-8 (after byte ${job.bytesRead}); reading stopped.`);
    }
    throw new Error(`The request body could not be read to its end: ${messageOf(error)}`);
  }
  if (declaredBytes !== undefined && job.bytesRead < declaredBytes) {
    throw new Error(
      `The request body ended after ${job.bytesRead} of ${declaredBytes} bytes; the rest ` +
        "was not imported.",
    );
  }
}

/** The problem's detail and its first field error, which often says what is wrong. */
function withFirstDetail(error: DomainError): string {
  const first = error.errors?.[0];
  if (!first || isProblem(error, "rdf-syntax")) return error.message;
  return `${error.message} (${first.path}: ${first.message})`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
