/**
 * Delivers each collection's change feed to its webhooks (docs/api.md, Webhooks): per
 * endpoint, the changes after its position (`webhook_state.ts`), one at a time, in feed
 * order: the next only once the endpoint answered the previous one 2xx. Each is POSTed as
 * the JSON the feed answers, signed (`webhook_signature.ts`).
 *
 * Woken by the feed (`ChangeFeed.subscribe`) and by catalog changes, and by a slow poll as a
 * safety net. A refused attempt (not 2xx, no answer within `timeoutMs`, a redirect: never
 * followed) is tried again after a back-off doubling from `retryStartMs` up to `retryMaxMs`;
 * once the change has failed for `retryForMs` it is dead-lettered and delivery moves on.
 *
 * On a store shared by several instances, an endpoint is delivered by the holder of its
 * lease only (`WebhookStateStore.claim`): this instance claims before it drains an endpoint,
 * renews the claim once half the lease is gone, and leaves alone an endpoint another
 * instance holds (the poll looks again; when that lease ends, delivery goes on here from
 * the recorded position). Delivery stays at least once: a change whose 2xx came but whose
 * position did not move (the instance died between) is sent again by the next holder, with
 * the same `webhook-id`.
 *
 * Changes go out in runs: the feed's changes after the position are POSTed one after the
 * other, each once the previous one was answered 2xx, and the position is written once for
 * the run (at most {@link RUN_CHANGES} changes or {@link RUN_MS}, and before anything else is
 * written: a failure, a stop). On a SPARQL store a state write is a request to the store, so
 * writing it per change would bound delivery by the store's update rate; the price is that a
 * holder that dies mid-run has its run sent again by the next one, with the same ids.
 */
import { type ChangeFeed, type ItemChange } from "../store/change_feed.ts";
import { isProblem } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";
import { maskUrlCredentials } from "../config/secret_masking.ts";
import { webhookHeaders, webhookMessageId } from "./webhook_signature.ts";
import type {
  AttemptOutcome,
  DeliveryState,
  DueChange,
  EndpointKey,
  WebhookStateStore,
} from "./webhook_state.ts";

/** An endpoint as configured. */
export interface WebhookEndpoint extends EndpointKey {
  secret: string;
}

/** What the deliverer counts (src/metrics/metrics.ts). */
export interface WebhookCounters {
  webhookDelivered(collection: string): void;
  webhookFailed(collection: string): void;
  webhookDeadLettered(collection: string): void;
}

/** The deliverer's settings and collaborators. */
export interface WebhookDelivererOptions {
  feed: ChangeFeed;
  state: WebhookStateStore;
  /** The endpoints configured now (read at every wake). */
  endpoints: () => WebhookEndpoint[];
  retryForMs: number;
  retryStartMs: number;
  retryMaxMs: number;
  timeoutMs: number;
  counters?: WebhookCounters;
  /** The safety-net poll; 5 s by default (at most half the lease on a shared store). */
  pollMs?: number;
  /** This instance's id, the holder of the endpoints' leases it takes; a random one if unset. */
  holder?: string;
  /** How long a lease lasts unless renewed (`service.cluster.leaseMs`); 30 s by default. */
  leaseMs?: number;
}

/** Changes read from the feed per read. */
const PAGE = 100;
/** Most changes POSTed between two writes of the position: a page of the feed. */
export const RUN_CHANGES = PAGE;
/** Longest time between two writes of the position while changes go out. */
export const RUN_MS = 500;

/** The wait before attempt `failures + 1`, after `failures` failed ones. */
export function backoffMs(failures: number, startMs: number, maxMs: number): number {
  return Math.min(maxMs, startMs * 2 ** Math.min(failures - 1, 40));
}

function keyOf(key: EndpointKey): string {
  return JSON.stringify([key.collection, key.url]);
}

/** The background delivery of the change feed to every configured endpoint. */
export class WebhookDeliverer {
  readonly #options: WebhookDelivererOptions;
  /** Endpoints being worked on; `again`: woken meanwhile, look once more before stopping. */
  readonly #running = new Map<string, { again: boolean; done: Promise<void> }>();
  readonly #retryTimers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #stopping = new AbortController();
  /** Leases this instance took, and until when (ms) they surely last: its claim's time on. */
  readonly #held = new Map<string, { endpoint: EndpointKey; until: number }>();
  readonly #holder: string;
  readonly #leaseMs: number;
  #unsubscribe?: () => void;
  #poll?: ReturnType<typeof setInterval>;

  constructor(options: WebhookDelivererOptions) {
    this.#options = options;
    this.#holder = options.holder ?? crypto.randomUUID();
    this.#leaseMs = options.leaseMs ?? 30_000;
  }

  /** Starts delivering; call {@link wake} when the endpoints change. */
  start(): void {
    this.#poll = setInterval(() => this.wake(), this.#options.pollMs ?? 5000);
    this.wake();
  }

  /** Looks for work on every endpoint now. */
  wake(): void {
    if (this.#stopping.signal.aborted) return;
    const endpoints = this.#options.endpoints();
    this.#listen(endpoints.length > 0);
    for (const endpoint of endpoints) {
      const key = keyOf(endpoint);
      const running = this.#running.get(key);
      if (running) {
        running.again = true;
        continue;
      }
      const entry = { again: false, done: Promise.resolve() };
      this.#running.set(key, entry);
      entry.done = this.#drain(endpoint).catch((error) => {
        log("warn", "webhook delivery stopped on an error; it resumes at the next wake", {
          collection: endpoint.collection,
          url: maskUrlCredentials(endpoint.url),
          error: error instanceof Error ? error.message : String(error),
        });
      }).finally(() => this.#running.delete(key));
    }
  }

  /**
   * Follows the feed's commits only while some endpoint is configured: on a SPARQL store a
   * subscription polls the store (`sparql_change_feed.ts`), which no instance without
   * webhooks should pay for.
   */
  #listen(wanted: boolean): void {
    if (wanted && !this.#unsubscribe) {
      this.#unsubscribe = this.#options.feed.subscribe(() => this.wake());
    } else if (!wanted && this.#unsubscribe) {
      this.#unsubscribe();
      this.#unsubscribe = undefined;
    }
  }

  /** Stops: attempts in flight are cut, their change stays due. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#poll);
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    await Promise.all([...this.#running.values()].map((entry) => entry.done));
    // Given back, another instance takes the endpoints over at its next poll, not a lease later.
    await Promise.all(
      [...this.#held.values()].map(({ endpoint }) =>
        this.#options.state.release(endpoint, this.#holder).catch(() => {})
      ),
    );
    this.#held.clear();
  }

  /** Delivers the endpoint's due changes until none is due or one must wait. */
  async #drain(first: WebhookEndpoint): Promise<void> {
    const key = keyOf(first);
    const entry = this.#running.get(key)!;
    const { feed, state } = this.#options;
    // The feed's changes after the position, as last read.
    let page: ItemChange[] = [];
    while (!this.#stopping.signal.aborted) {
      entry.again = false;
      // Read again each time: the secret may have changed, the endpoint been removed.
      const endpoint = this.#options.endpoints().find((e) => keyOf(e) === key);
      if (!endpoint) return;
      if (!await this.#hold(key, endpoint)) return;
      const current = await state.open(endpoint, () => feed.end(endpoint.collection));
      if (current.lease && current.lease.holder !== this.#holder) {
        // Taken over (this instance's lease had ended): the other holder delivers now.
        this.#held.delete(key);
        return;
      }
      if (this.#mustWait(key, current)) return;
      const letter = await state.queuedLetter(endpoint);
      if (letter) {
        await this.#attempt(endpoint, current, { change: letter.change, letter: letter.id });
        continue;
      }
      if (page.length === 0) page = await this.#read(endpoint, current.position);
      if (page.length === 0) {
        if (entry.again) continue;
        return;
      }
      page = page.slice(await this.#run(key, endpoint, current, page));
    }
  }

  /**
   * POSTs `changes` in order, from the first, while each is answered 2xx and this instance
   * surely holds the lease, for at most a run; writes the position once for the changes
   * delivered. A failed attempt ends the run (after the position is written): it is settled
   * as {@link #attempt} does. Returns how many of `changes` the endpoint is done with.
   */
  async #run(
    key: string,
    endpoint: WebhookEndpoint,
    current: DeliveryState,
    changes: ItemChange[],
  ): Promise<number> {
    const { state, counters } = this.#options;
    const started = Date.now();
    let done = 0;
    let last: { change: ItemChange; outcome: AttemptOutcome } | undefined;
    const record = async () => {
      if (!last) return;
      const { change, outcome } = last;
      last = undefined;
      await state.delivered(endpoint, { change }, outcome, this.#holder);
    };
    try {
      for (const change of changes) {
        const runOver = done >= RUN_CHANGES || Date.now() - started >= RUN_MS;
        if (done > 0 && (runOver || !this.#surelyHeld(key))) break;
        const outcome = await this.#post(endpoint, change);
        if (this.#stopping.signal.aborted) break;
        if (outcome.error === null) {
          last = { change, outcome };
          done++;
          counters?.webhookDelivered(endpoint.collection);
          continue;
        }
        // The failure is about a change after those delivered: their position first, and
        // the failing one starts its own count.
        const failing = done > 0
          ? { ...current, attempts: 0, failingSince: null, nextAttempt: null }
          : current;
        await record();
        if (await this.#settleFailure(endpoint, failing, { change }, outcome)) done++;
        break;
      }
    } finally {
      await record();
    }
    return done;
  }

  /** Whether this instance's lease on the endpoint lasts beyond an attempt's time, by its own clock. */
  #surelyHeld(key: string): boolean {
    const held = this.#held.get(key);
    return held !== undefined && held.until - Date.now() > this.#holdMargin();
  }

  /** Lease time left below which it is claimed again before an attempt. */
  #holdMargin(): number {
    return Math.max(this.#leaseMs / 2, this.#options.timeoutMs);
  }

  /**
   * Whether this instance holds the endpoint's lease for long enough to make an attempt:
   * claimed (or renewed) when less than half of it, or less than an attempt's timeout, is
   * left. The state's writes renew it too; the claim here is what keeps it when they fail.
   */
  async #hold(key: string, endpoint: WebhookEndpoint): Promise<boolean> {
    if (this.#surelyHeld(key)) return true;
    const asked = Date.now();
    if (await this.#options.state.claim(endpoint, this.#holder)) {
      this.#held.set(key, {
        endpoint: { collection: endpoint.collection, url: endpoint.url },
        until: asked + this.#leaseMs,
      });
      return true;
    }
    this.#held.delete(key);
    return false;
  }

  /** The feed's changes after `position` (from what is kept when some were pruned). */
  async #read(endpoint: WebhookEndpoint, position: string): Promise<ItemChange[]> {
    try {
      return (await this.#options.feed.read(endpoint.collection, position, PAGE)).changes;
    } catch (error) {
      if (!isProblem(error, "cursor-expired")) throw error;
      // Pruned before they were delivered (the endpoint was away for longer than the feed
      // keeps changes): go on from what is kept, and say what was lost.
      const oldest = String(error.extensions.oldest);
      const message = `changes after ${position} up to ${oldest} were pruned from the feed ` +
        "before delivery (service.changes.retentionMs)";
      log("warn", "webhook changes lost to feed retention", {
        collection: endpoint.collection,
        url: maskUrlCredentials(endpoint.url),
        from: position,
        to: oldest,
      });
      await this.#options.state.skipTo(endpoint, oldest, {
        at: new Date().toISOString(),
        status: null,
        error: message,
      }, this.#holder);
      return (await this.#options.feed.read(endpoint.collection, oldest, PAGE)).changes;
    }
  }

  /** Whether the endpoint's next attempt is later: then a timer wakes it. */
  #mustWait(key: string, current: DeliveryState): boolean {
    if (current.nextAttempt === null) return false;
    const wait = Date.parse(current.nextAttempt) - Date.now();
    if (wait <= 0) return false;
    clearTimeout(this.#retryTimers.get(key));
    this.#retryTimers.set(
      key,
      setTimeout(() => {
        this.#retryTimers.delete(key);
        this.wake();
      }, wait),
    );
    return true;
  }

  /**
   * One attempt at the due change, and what follows from its outcome. Returns whether the
   * endpoint is done with the change (delivered or dead-lettered).
   */
  async #attempt(
    endpoint: WebhookEndpoint,
    current: DeliveryState,
    due: DueChange,
  ): Promise<boolean> {
    const { state, counters } = this.#options;
    const outcome = await this.#post(endpoint, due.change);
    if (this.#stopping.signal.aborted) return false;
    if (outcome.error === null) {
      await state.delivered(endpoint, due, outcome, this.#holder);
      counters?.webhookDelivered(endpoint.collection);
      return true;
    }
    return await this.#settleFailure(endpoint, current, due, outcome);
  }

  /**
   * A failed attempt at `due`: dead-lettered once it has failed for `retryForMs` (the
   * endpoint is then done with it: true), else tried again after the back-off (false).
   */
  async #settleFailure(
    endpoint: WebhookEndpoint,
    current: DeliveryState,
    due: DueChange,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const { state, counters, retryForMs, retryStartMs, retryMaxMs } = this.#options;
    counters?.webhookFailed(endpoint.collection);
    const now = Date.parse(outcome.at);
    const since = current.failingSince === null ? now : Date.parse(current.failingSince);
    if (now - since >= retryForMs) {
      await state.deadLettered(endpoint, due, outcome, this.#holder);
      counters?.webhookDeadLettered(endpoint.collection);
      log("warn", "webhook change dead-lettered", {
        collection: endpoint.collection,
        url: maskUrlCredentials(endpoint.url),
        cursor: due.change.cursor,
        attempts: current.attempts + 1,
        error: outcome.error,
      });
      return true;
    }
    const wait = backoffMs(current.attempts + 1, retryStartMs, retryMaxMs);
    await state.failed(endpoint, outcome, new Date(now + wait).toISOString(), this.#holder);
    return false;
  }

  /** POSTs the change; never throws: a failure is the outcome's `error`. */
  async #post(endpoint: WebhookEndpoint, change: ItemChange): Promise<AttemptOutcome> {
    const started = new Date();
    const at = started.toISOString();
    const body = JSON.stringify(change);
    const id = webhookMessageId(endpoint.collection, endpoint.url, change.cursor);
    try {
      const response = await fetch(endpoint.url, {
        method: "POST",
        headers: webhookHeaders(endpoint.secret, id, body, started),
        body,
        redirect: "manual",
        signal: AbortSignal.any([
          AbortSignal.timeout(this.#options.timeoutMs),
          this.#stopping.signal,
        ]),
      });
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) {
        return { at, status: response.status, error: null };
      }
      const error = response.status >= 300 && response.status < 400
        ? `answered ${response.status} (redirects are not followed)`
        : `answered ${response.status}`;
      return { at, status: response.status, error };
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      return {
        at,
        status: null,
        error: timedOut
          ? `no answer within ${this.#options.timeoutMs} ms`
          : maskUrlCredentials(error instanceof Error ? error.message : String(error)),
      };
    }
  }
}
