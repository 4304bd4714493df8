/**
 * Group commit: item writes that arrive while a commit is in flight are committed together
 * in the next one, so a store pays one durable commit (one fsync, one SPARQL Update request)
 * per group instead of one per write.
 *
 * There is no timer waiting for company: a write that finds nothing in flight is committed
 * at once, alone; the next group is whatever queued meanwhile. A group is bounded by a
 * count and by bytes. A write waits for the commit ahead of it at most `maxWaitMs`; after
 * that its group goes out beside the slow one (at most {@link MAX_IN_FLIGHT} at once), so a
 * stalled fsync or request adds a bounded delay, not an unbounded one.
 *
 * The store's `commit` checks and applies each write of a group on its own and reports an
 * outcome per write: one write's conflict/not-found/precondition-failed never fails its neighbours. A commit that
 * throws fails every write of its group with that error (nothing of it was acknowledged).
 */

/** Bounds of a group (`service.store.groupCommit`). */
export interface GroupCommitOptions {
  /** Most writes per group. */
  maxWrites: number;
  /** Most bytes per group (estimated by the store); one larger write still goes alone. */
  maxBytes: number;
  /** Longest a write waits for the commit in flight before its group goes beside it. */
  maxWaitMs: number;
}

/** Commits beside each other at most, when the ones in flight are slow. */
export const MAX_IN_FLIGHT = 4;

/** How one write of a group ended. */
export type WriteOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Commits a group; returns one outcome per write, in the group's order. */
export type CommitGroup<W, R> = (writes: W[]) => Promise<WriteOutcome<R>[]>;

interface Queued<W, R> {
  write: W;
  bytes: number;
  queuedAt: number;
  resolve(value: R): void;
  reject(error: unknown): void;
}

/** Queues writes and hands them to `commit` in groups; see the module comment. */
export class GroupCommitter<W, R> {
  readonly #commit: CommitGroup<W, R>;
  readonly #options: GroupCommitOptions;
  readonly #queue: Queued<W, R>[] = [];
  #inFlight = 0;
  #timer?: ReturnType<typeof setTimeout>;
  /** Callers of {@link idle}, told whenever a commit ends. */
  #idleWaiters: (() => void)[] = [];
  /** Group sizes committed so far (for tests and metrics). */
  readonly stats = { groups: 0, writes: 0, largest: 0 };

  constructor(commit: CommitGroup<W, R>, options: GroupCommitOptions) {
    this.#commit = commit;
    this.#options = options;
  }

  /** Resolves once nothing is queued or in flight (for closing the store after its writes). */
  async idle(): Promise<void> {
    while (this.#queue.length > 0 || this.#inFlight > 0) {
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  /** Resolves with the write's result once the commit holding it is durable. */
  submit(write: W, bytes: number): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ write, bytes, queuedAt: performance.now(), resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const waited = performance.now() - this.#queue[0].queuedAt;
      if (this.#inFlight > 0 && waited < this.#options.maxWaitMs) {
        this.#armTimer(this.#options.maxWaitMs - waited);
        return;
      }
      void this.#run(this.#takeGroup());
    }
  }

  #armTimer(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, Math.max(0, Math.ceil(ms)));
  }

  #takeGroup(): Queued<W, R>[] {
    let count = 0;
    let bytes = 0;
    while (count < this.#queue.length && count < this.#options.maxWrites) {
      const next = this.#queue[count].bytes;
      if (count > 0 && bytes + next > this.#options.maxBytes) break;
      bytes += next;
      count++;
    }
    return this.#queue.splice(0, count);
  }

  async #run(group: Queued<W, R>[]): Promise<void> {
    this.#inFlight++;
    this.stats.groups++;
    this.stats.writes += group.length;
    this.stats.largest = Math.max(this.stats.largest, group.length);
    try {
      const outcomes = await this.#commit(group.map((queued) => queued.write));
      group.forEach((queued, index) => {
        const outcome = outcomes[index];
        if (outcome?.ok) queued.resolve(outcome.value);
        else queued.reject(outcome ? outcome.error : new Error("the commit lost a write"));
      });
    } catch (error) {
      for (const queued of group) queued.reject(error);
    } finally {
      this.#inFlight--;
      if (this.#timer !== undefined && this.#inFlight === 0) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
      this.#pump();
      for (const wake of this.#idleWaiters.splice(0)) wake();
    }
  }
}

/** Runs `work`, turning its result or its error into a write's outcome. */
export function outcomeOf<R>(work: () => R): WriteOutcome<R> {
  try {
    return { ok: true, value: work() };
  } catch (error) {
    return { ok: false, error };
  }
}
