/**
 * Keeps each collection's change feed to its retention (`service.changes.retentionMs`): a
 * pruning pass at start and then about every quarter of the retention (at least every
 * second, at most every hour), so a change lives between the retention and a quarter more.
 * Pruning raises the feed's horizon, so an older cursor is told expired (`change_feed.ts`).
 */
import type { ChangeFeed } from "./change_feed.ts";
import { log } from "../log/logger.ts";

const MIN_INTERVAL_MS = 1000;
const MAX_INTERVAL_MS = 3_600_000;

/** Prunes a change feed on a timer until stopped. */
export class ChangeRetention {
  readonly #feed: ChangeFeed;
  readonly #retentionMs: number;
  #timer?: ReturnType<typeof setTimeout>;
  #running?: Promise<void>;
  #stopped = false;

  constructor(feed: ChangeFeed, retentionMs: number) {
    this.#feed = feed;
    this.#retentionMs = retentionMs;
  }

  /** Prunes now, then on the timer. */
  start(): void {
    this.#schedule(0);
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#pass().finally(() => {
        this.#running = undefined;
        this.#schedule(
          Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, this.#retentionMs / 4)),
        );
      });
    }, delayMs);
    Deno.unrefTimer(this.#timer);
  }

  async #pass(): Promise<void> {
    try {
      const removed = await this.#feed.prune(new Date(Date.now() - this.#retentionMs));
      if (removed > 0) log("info", "change feed pruned", { removed });
    } catch (error) {
      // The next pass tries again; a feed that keeps a little longer loses nothing.
      log("warn", "change feed pruning failed", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
