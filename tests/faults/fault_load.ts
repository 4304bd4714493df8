/**
 * What every fault scenario of tests/faults/ runs and checks: a steady write load, probes
 * of `/ready` (and of search), each recorded per phase (before, during, after the fault),
 * and the checks after recovery: no acknowledged write lost, no stale ETag, the index
 * equal to the store.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, itemQuery } from "../support/service.ts";
import { assertWhole, readServedItem, searchWord, versionBody } from "../support/item_versions.ts";

/** Triples per item version: small, so the load is about requests, not bytes. */
export const TRIPLES = 10;

/** How one write of a version ended. */
type Outcome = "acked" | "unknown" | "refused";

/** What the clients saw in one phase. */
export interface PhaseStats {
  /** `201`, `204`, `503 store-unavailable`, `507 storage-full`, … with their counts. */
  statuses: Record<string, number>;
  maxLatencyMs: number;
  requests: number;
}

/** Counts statuses and latencies per phase. */
export class PhaseRecorder {
  phase = "before";
  readonly phases = new Map<string, PhaseStats>();

  record(status: string, latencyMs: number): void {
    let stats = this.phases.get(this.phase);
    if (!stats) this.phases.set(this.phase, stats = { statuses: {}, maxLatencyMs: 0, requests: 0 });
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    stats.maxLatencyMs = Math.max(stats.maxLatencyMs, Math.round(latencyMs));
    stats.requests++;
  }

  get(phase: string): PhaseStats {
    return this.phases.get(phase) ?? { statuses: {}, maxLatencyMs: 0, requests: 0 };
  }

  /** Each phase's statuses with their counts, for a report. */
  statusesByPhase(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.phases].map(([name, stats]) => [name, stats.statuses]));
  }

  /** Each phase's slowest request, for a report. */
  maxLatencyByPhase(): Record<string, number> {
    return Object.fromEntries([...this.phases].map(([name, stats]) => [name, stats.maxLatencyMs]));
  }

  /** Statuses of `phase` other than those listed. */
  others(phase: string, allowed: string[]): Record<string, number> {
    return Object.fromEntries(
      Object.entries(this.get(phase).statuses).filter(([status]) => !allowed.includes(status)),
    );
  }
}

/** `201` for a success, else `<status> <problem slug>`. */
async function statusOf(response: Response): Promise<string> {
  const text = await response.text();
  if (response.ok) return String(response.status);
  try {
    const body = JSON.parse(text) as { type?: string };
    if (response.status === 503 || response.status === 507) {
      // Every refusal during a fault tells the client when to come back, or what to do.
      const retryAfter = response.headers.get("retry-after");
      if (body.type === "/problems/write-outcome-unknown") assert.ok(retryAfter, text);
    }
    return `${response.status} ${body.type?.replace("/problems/", "") ?? "?"}`;
  } catch {
    return `${response.status} (not problem+json)`;
  }
}

interface ItemState {
  uri: string;
  created: boolean;
  version: number;
  outcomes: Map<number, Outcome>;
  /** What the client was told of each version, and in which phase: for a failure message. */
  answers: Map<number, string>;
}

/**
 * `writers` clients, each writing new versions of its own few items in turn, as fast as
 * the service answers, with a client-side timeout (so a hung request is seen, not waited
 * on forever).
 */
export class WriteLoad {
  readonly recorder = new PhaseRecorder();
  readonly items: ItemState[] = [];
  #stop = false;
  #running: Promise<void>[] = [];
  #baseUrl: string;
  readonly #word: string;

  constructor(baseUrl: string, word: string, run: string, writers = 6, itemsPerWriter = 4) {
    this.#baseUrl = baseUrl;
    this.#word = word;
    for (let w = 0; w < writers; w++) {
      for (let n = 0; n < itemsPerWriter; n++) {
        this.items.push({
          uri: `https://data.example.org/id/faults/${run}/w${w}-${n}`,
          created: false,
          version: 0,
          outcomes: new Map(),
          answers: new Map(),
        });
      }
    }
    this.#running = Array.from(
      { length: writers },
      (_, w) => this.#writer(this.items.slice(w * itemsPerWriter, (w + 1) * itemsPerWriter)),
    );
  }

  /** A restarted service (same data) takes the load from here. */
  set baseUrl(url: string) {
    this.#baseUrl = url;
  }

  /** Acknowledged writes so far. */
  get acknowledged(): number {
    let count = 0;
    for (const item of this.items) {
      for (const outcome of item.outcomes.values()) if (outcome === "acked") count++;
    }
    return count;
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await Promise.all(this.#running);
  }

  async #writer(items: ItemState[]): Promise<void> {
    for (let turn = 0; !this.#stop; turn++) {
      const item = items[turn % items.length];
      const version = ++item.version;
      const body = versionBody(item.uri, version, this.#word, TRIPLES);
      const started = performance.now();
      let status: string;
      try {
        const response = await fetch(
          item.created
            ? `${this.#baseUrl}/api/item?${itemQuery(item.uri)}`
            : `${this.#baseUrl}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
          {
            method: item.created ? "POST" : "PUT",
            headers: { "Content-Type": "application/n-triples" },
            body,
            signal: AbortSignal.timeout(60_000),
          },
        );
        status = await statusOf(response);
      } catch (error) {
        // The service itself is gone (killed): the write may or may not have committed.
        status = `no answer (${error instanceof Error ? error.name : "error"})`;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      this.recorder.record(status, performance.now() - started);
      item.answers.set(
        version,
        `${status} in phase ${this.recorder.phase} after ${
          Math.round(performance.now() - started)
        } ms`,
      );
      if (status === "201" || status === "204") {
        item.created = true;
        item.outcomes.set(version, "acked");
      } else if (status === "409 item-exists") {
        // An earlier create whose outcome was unknown did apply.
        item.created = true;
        item.outcomes.set(version, "refused");
      } else if (status.startsWith("no answer") || status.includes("write-outcome-unknown")) {
        item.outcomes.set(version, "unknown");
      } else {
        item.outcomes.set(version, "refused");
        // Back off a little on refusals, as a client told Retry-After would.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /**
   * After recovery: every item holds its last acknowledged version or a later one whose
   * outcome was unknown (never an older one: no acknowledged write lost; never a refused
   * one), whole, with an ETag that is the hash of what is served (no stale ETag).
   * Returns uri → served ETag.
   */
  async verifyStore(baseUrl: string): Promise<Map<string, string>> {
    const served = new Map<string, string>();
    for (const item of this.items) {
      const acked = [...item.outcomes].filter(([, o]) => o === "acked").map(([v]) => v);
      const lastAcked = acked.length ? Math.max(...acked) : 0;
      const current = await readServedItem(baseUrl, item.uri);
      if (!current) {
        assert.equal(lastAcked, 0, `${item.uri}: acknowledged version ${lastAcked} lost`);
        continue;
      }
      const version = Number(/version (\d+)"/.exec(current.ntriples)?.[1]);
      const allowed = version === lastAcked ||
        (version > lastAcked && item.outcomes.get(version) === "unknown");
      assert.ok(
        allowed,
        `${item.uri}: holds version ${version} (answered ${item.answers.get(version)}), ` +
          `last acknowledged ${lastAcked} (answered ${item.answers.get(lastAcked)})`,
      );
      await assertWhole(baseUrl, item.uri, current, TRIPLES);
      served.set(item.uri, current.hash);
    }
    return served;
  }
}

/** Asks `/ready` every `intervalMs`; records status and duration per phase. */
export class ReadyProbe {
  readonly recorder = new PhaseRecorder();
  #stop = false;
  readonly #running: Promise<void>;
  baseUrl = "";

  constructor(baseUrl: string, intervalMs = 250) {
    this.baseUrl = baseUrl;
    this.#running = (async () => {
      while (!this.#stop) {
        const started = performance.now();
        let status: string;
        try {
          const response = await fetch(`${this.baseUrl}/ready`, {
            signal: AbortSignal.timeout(30_000),
          });
          const body = await response.json() as { status: string };
          status = `${response.status} ${body.status}`;
        } catch {
          status = "no answer";
        }
        this.recorder.record(status, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    })();
  }

  set phase(phase: string) {
    this.recorder.phase = phase;
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#running;
  }
}

/** Waits until `check` holds, asking every 100 ms, at most `timeoutMs`; returns the wait. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
  explain: () => string = () => what.includes("index") ? indexMismatch : "",
): Promise<number> {
  const started = performance.now();
  while (!(await check().catch(() => false))) {
    assert.ok(
      performance.now() - started < timeoutMs,
      `${what}: not within ${timeoutMs} ms ${explain()}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Math.round(performance.now() - started);
}

/**
 * Waits for the load's first `count` acknowledged writes, before any fault. A fresh engine
 * on a busy machine (the CI runs two suites side by side) can take a while to warm up, so
 * the wait is long; a failure says what the writes got meanwhile.
 */
export function loadWarmedUp(load: WriteLoad, count = 50): Promise<number> {
  return eventually(
    "writes before the fault",
    () => Promise.resolve(load.acknowledged >= count),
    180_000,
    () => JSON.stringify(load.recorder.get(load.recorder.phase)),
  );
}

/** The last few log lines about the outbox or the search index, to explain a stuck drain. */
function indexingLog(log: string): string {
  return log.split("\n").filter((line) => /outbox|index|search|storage/i.test(line)).slice(-8).join(
    "\n",
  );
}

/** Whether the service's outbox is empty. */
export function outboxEmpty(baseUrl: string): Promise<boolean> {
  return backlogAtMost(baseUrl, 0);
}

/**
 * Whether the outbox holds at most `entries`: under a steady write load it is never empty,
 * so "caught up" means back to what the load keeps in flight.
 */
export async function backlogAtMost(baseUrl: string, entries: number): Promise<boolean> {
  const response = await fetch(`${baseUrl}/ready`);
  const body = await response.json() as { checks: { outbox: { detail: unknown } } };
  return typeof body.checks.outbox.detail === "number" && body.checks.outbox.detail <= entries;
}

/**
 * Whether search finds exactly the stored items, each at its stored version (the index
 * equals the store): the search hits for `word` against uri → ETag of the store.
 */
/**
 * After recovery: every acknowledged write is stored, whole, with a true ETag
 * ({@link WriteLoad.verifyStore}); the outbox drains; the index then equals the store.
 * Returns the drain's wait and what is stored.
 */
export async function nothingLost(
  baseUrl: string,
  load: WriteLoad,
  word: string,
  serviceLog: () => string = () => "",
): Promise<{ drainMs: number; stored: Map<string, string> }> {
  const stored = await load.verifyStore(baseUrl);
  let lastReady = "";
  const drainMs = await eventually(
    "the outbox drains",
    async () => {
      const response = await fetch(`${baseUrl}/ready`);
      const body = await response.json() as { checks: { outbox: { detail: unknown } } };
      lastReady = JSON.stringify(body.checks.outbox);
      return body.checks.outbox.detail === 0;
    },
    60_000,
    () =>
      `(last outbox check ${lastReady}; the service's last words on indexing: ${
        indexingLog(serviceLog())
      })`,
  );
  await eventually("the index equals the store", () => indexEqualsStore(baseUrl, word, stored));
  return { drainMs, stored };
}

export async function indexEqualsStore(
  baseUrl: string,
  word: string,
  stored: Map<string, string>,
): Promise<boolean> {
  const hits = await searchWord(baseUrl, word);
  const wrong = hits.filter((hit) => stored.get(hit.uri) !== hit.document.hash)
    .map((hit) => `${hit.uri} indexed at ${hit.document.hash}, stored ${stored.get(hit.uri)}`);
  const indexed = new Set(hits.map((hit) => hit.uri));
  const missing = [...stored.keys()].filter((uri) => !indexed.has(uri));
  indexMismatch = [...wrong, ...missing.map((uri) => `${uri} not indexed`)].join("; ");
  return indexMismatch === "";
}

/** What {@link indexEqualsStore} found wrong last, for a failure message. */
export let indexMismatch = "";

/** One line of figures for the log (and docs/operations.md). */
export function report(name: string, figures: Record<string, unknown>): void {
  console.log(`[faults] ${name}: ${JSON.stringify(figures)}`);
}
