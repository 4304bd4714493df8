/**
 * A fixed pool of worker threads running one module, with a bounded queue.
 *
 * Each worker holds at most {@link TASKS_PER_WORKER} tasks, so that it has the next one at
 * hand while the request thread is busy; the rest wait in one queue of at most `maxQueue`
 * tasks. A task that finds the queue full is refused (503 `workers-busy`) unless its caller
 * asked to wait, which a caller may only do when it bounds its own tasks in flight (the
 * import does): so what waits is bounded either way, and memory never piles up.
 *
 * A worker that dies (out of memory, a crash in a native module) fails only the tasks it
 * held, and is replaced.
 */
import { DomainError } from "../errors/domain_error.ts";
import { errorFromWire, type WireError } from "../errors/error_wire.ts";
import { log } from "../log/logger.ts";

/** Tasks handed to a worker before it answers: one running, one ready behind it. */
export const TASKS_PER_WORKER = 2;

/**
 * What the pool posts to a worker: its setup once, then tasks; `close` only from
 * {@link WorkerPool.shutdown}, to a worker that holds resources of its own.
 */
export type ToWorker<Task> = { init: unknown } | { id: number; task: Task } | { close: true };

/** What a worker posts back for task `id`, or once it has released its resources. */
export type FromWorker<Result> =
  | { id: number; ok: true; value: Result }
  | { id: number; ok: false; error: WireError }
  | { closed: true };

/** How the pool is built. */
export interface WorkerPoolOptions {
  /** The worker module (`new URL("./x.ts", import.meta.url)`). */
  url: URL;
  /** Worker threads, at least 1. */
  size: number;
  /** Tasks that may wait for a worker beyond the ones the workers hold. */
  maxQueue: number;
  /** Posted to each worker before its first task. */
  init?: unknown;
  /** The pool's name in logs and messages. */
  name: string;
}

/** How one task is run. */
export interface RunOptions {
  /** Wait for room when the queue is full instead of being refused. */
  wait?: boolean;
}

/** What the pool is doing. */
export interface PoolStats {
  size: number;
  /** Tasks the workers hold. */
  running: number;
  /** Tasks waiting for a worker. */
  queued: number;
  /** Tasks answered since the pool started. */
  done: number;
}

interface Pending<Task, Result> {
  id: number;
  task: Task;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

interface Slot<Task, Result> {
  worker: Worker;
  held: Map<number, Pending<Task, Result>>;
  /** Called when the worker answers `closed` (see {@link WorkerPool.shutdown}). */
  onClosed?: () => void;
}

/** Runs tasks on a fixed set of workers; see the module comment. */
export class WorkerPool<Task, Result> {
  readonly #options: WorkerPoolOptions;
  readonly #slots: Slot<Task, Result>[] = [];
  readonly #queue: Pending<Task, Result>[] = [];
  readonly #waitingForRoom: (() => void)[] = [];
  #nextId = 1;
  #done = 0;
  #closed = false;
  /** Set by {@link shutdown}: tasks are refused from then on. */
  #closing = false;

  constructor(options: WorkerPoolOptions) {
    if (!(Number.isInteger(options.size) && options.size >= 1)) {
      throw new RangeError(`a worker pool needs at least one worker, got ${options.size}`);
    }
    this.#options = options;
    for (let i = 0; i < options.size; i++) this.#slots.push(this.#spawn());
  }

  get size(): number {
    return this.#options.size;
  }

  /** Runs `task` on a worker; settles with its result or its error. */
  async run(task: Task, options: RunOptions = {}): Promise<Result> {
    while (this.#queue.length >= this.#options.maxQueue && !this.#closed) {
      if (!options.wait) throw this.#busy();
      await new Promise<void>((resolve) => this.#waitingForRoom.push(resolve));
    }
    if (this.#closed || this.#closing) throw stopping();
    const { promise, resolve, reject } = Promise.withResolvers<Result>();
    this.#queue.push({ id: this.#nextId++, task, resolve, reject });
    this.#dispatch();
    return await promise;
  }

  /** True when no task runs or waits. */
  get idle(): boolean {
    return this.#queue.length === 0 && this.#slots.every((slot) => slot.held.size === 0);
  }

  stats(): PoolStats {
    let running = 0;
    for (const slot of this.#slots) running += slot.held.size;
    return { size: this.#options.size, running, queued: this.#queue.length, done: this.#done };
  }

  /**
   * Asks every worker to release what it holds (files, connections: a worker that holds some
   * answers `{ close: true }` with `{ closed: true }` once released), waits for the answers up
   * to `timeoutMs`, then stops every worker as {@link close} does. No task starts meanwhile.
   */
  async shutdown(timeoutMs = 5000): Promise<void> {
    if (this.#closed) return;
    this.#closing = true;
    const released = this.#slots.map((slot) =>
      new Promise<void>((resolve) => {
        slot.onClosed = resolve;
        slot.worker.postMessage({ close: true } satisfies ToWorker<Task>);
      })
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs));
    await Promise.race([Promise.all(released), waited]);
    clearTimeout(timer);
    this.close();
  }

  /** Stops every worker; tasks not yet answered fail with 503 `shutting-down`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const slot of this.#slots) {
      slot.worker.terminate();
      for (const pending of slot.held.values()) pending.reject(stopping());
      slot.held.clear();
    }
    for (const pending of this.#queue.splice(0)) pending.reject(stopping());
    for (const wake of this.#waitingForRoom.splice(0)) wake();
  }

  /** Hands queued tasks to the least loaded workers that have room. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      let best: Slot<Task, Result> | undefined;
      for (const slot of this.#slots) {
        if (slot.held.size < TASKS_PER_WORKER && (!best || slot.held.size < best.held.size)) {
          best = slot;
        }
      }
      if (!best) return;
      const pending = this.#queue.shift()!;
      best.held.set(pending.id, pending);
      const message: ToWorker<Task> = { id: pending.id, task: pending.task };
      try {
        best.worker.postMessage(message);
      } catch (error) {
        // The task cannot be cloned: its caller's mistake, not the worker's.
        best.held.delete(pending.id);
        pending.reject(error);
      }
      this.#waitingForRoom.shift()?.();
    }
  }

  #spawn(): Slot<Task, Result> {
    const worker = new Worker(this.#options.url, { type: "module", name: this.#options.name });
    const slot: Slot<Task, Result> = { worker, held: new Map() };
    worker.postMessage({ init: this.#options.init } satisfies ToWorker<Task>);
    worker.onmessage = (event: MessageEvent<FromWorker<Result>>) => {
      const answer = event.data;
      if ("closed" in answer) {
        slot.onClosed?.();
        return;
      }
      const pending = slot.held.get(answer.id);
      if (!pending) return;
      slot.held.delete(answer.id);
      this.#done++;
      if (answer.ok) pending.resolve(answer.value);
      else pending.reject(errorFromWire(answer.error));
      this.#dispatch();
    };
    worker.onerror = (event: ErrorEvent) => {
      // Handled here: unhandled, a worker's error would end the whole process.
      event.preventDefault();
      this.#replace(slot, event.message);
    };
    worker.onmessageerror = () => this.#replace(slot, "a message could not be read");
    return slot;
  }

  /** A dead worker's tasks fail; a fresh worker takes its place. */
  #replace(slot: Slot<Task, Result>, reason: string): void {
    slot.worker.terminate();
    const held = [...slot.held.values()];
    slot.held.clear();
    if (this.#closed) return;
    log("error", "worker stopped; starting another", {
      pool: this.#options.name,
      error: reason,
      tasks: held.length,
    });
    for (const pending of held) {
      pending.reject(new Error(`The ${this.#options.name} worker stopped: ${reason}`));
    }
    const index = this.#slots.indexOf(slot);
    if (index !== -1) this.#slots[index] = this.#spawn();
    this.#dispatch();
  }

  #busy(): DomainError {
    const { size, maxQueue, name } = this.#options;
    return new DomainError("workers-busy", {
      detail:
        `All ${size} ${name} workers are busy and ${maxQueue} requests wait for them; retry ` +
        "shortly.",
    });
  }
}

function stopping(): DomainError {
  return new DomainError("shutting-down", { detail: "The service is stopping." });
}
