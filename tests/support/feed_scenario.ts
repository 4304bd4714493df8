/**
 * The change feed's acceptance scenario, the parts shared by its run on three instances
 * (tests/cluster/change_feed_cluster_test.ts) and on the embedded default
 * (tests/api/change_feed_kill_test.ts): a reader that follows the feed as Server-Sent Events
 * from instance to instance, resuming by `Last-Event-ID`; stale writes that must be refused;
 * the verdicts of the feed and of each webhook receiver against the writers' ledger.
 */
import type { ItemChange } from "../../src/store/change_feed.ts";
import { RUN_CHANGES } from "../../src/webhooks/webhook_deliverer.ts";
import { sleep, type WriteLedger } from "./cluster.ts";
import { EventReader } from "./event_stream.ts";
import { newSecret, Receiver, verifySignature } from "./webhook_receiver.ts";

/** Where the scenario runs: the instances that are up now, and the collection's item paths. */
export interface FeedSite {
  collection: string;
  /** The base URLs of the instances running now. */
  urls(): string[];
  itemPath(uri?: string): string;
}

/** What a verdict found: checks that failed, and what was measured. */
export interface Verdict {
  problems: string[];
  measured: string[];
}

/**
 * Follows the collection's feed from the start, one session at a time on the next live
 * instance, each resuming by `Last-Event-ID` from the last event seen.
 */
export class FeedFollower {
  readonly events: ItemChange[] = [];
  /** Sessions after the first, each a reconnection with `Last-Event-ID`. */
  resumes = 0;
  /** Sessions cut by the service's end (the kill), not by the reader. */
  cut = 0;
  readonly #site: FeedSite;
  #turn = 0;

  constructor(site: FeedSite) {
    this.#site = site;
  }

  get last(): string | undefined {
    return this.events.at(-1)?.cursor;
  }

  /** One session: until `untilMs` passed, the stream ended, or `idleMs` without an event. */
  async session(untilMs: number, idleMs = Number.POSITIVE_INFINITY): Promise<void> {
    const live = this.#site.urls();
    if (live.length === 0) {
      await sleep(200); // every instance is down (a restart): try again
      return;
    }
    const url = live[this.#turn++ % live.length];
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.last !== undefined) {
      headers["Last-Event-ID"] = this.last;
      this.resumes++;
    }
    let response: Response;
    try {
      response = await fetch(
        `${url}/api/changes?collection=${encodeURIComponent(this.#site.collection)}`,
        { headers },
      );
    } catch {
      this.cut++;
      return; // the instance is gone: the next session resumes elsewhere
    }
    if (response.status !== 200) {
      throw new Error(`the feed answered ${response.status}: ${await response.text()}`);
    }
    const reader = new EventReader(response);
    try {
      for (;;) {
        const wait = Math.min(untilMs - Date.now(), idleMs);
        if (wait <= 0) return;
        const got = await reader.within(wait).catch(() => undefined);
        if (got === "timeout") return;
        if (got === undefined) {
          this.cut++;
          return;
        }
        if (got.event !== "change") continue;
        const change = JSON.parse(got.data!) as ItemChange;
        if (got.id !== change.cursor) throw new Error(`event id ${got.id} is not ${change.cursor}`);
        this.events.push(change);
      }
    } finally {
      await reader.close();
    }
  }
}

/**
 * Until `untilMs`, an update with a stale `If-Match` to an item no writer holds, every 100 ms:
 * each must be refused (412), is recorded as refused, and must leave no change.
 */
export async function refuseStaleWrites(
  site: FeedSite,
  ledger: WriteLedger,
  untilMs: number,
): Promise<number> {
  let refused = 0;
  while (Date.now() < untilMs) {
    await sleep(100);
    const idle = [...ledger.entries.values()].filter((entry) =>
      !entry.busy && entry.exists === true && entry.hash !== undefined && entry.writes
    );
    const entry = idle[Math.floor(Math.random() * idle.length)];
    const urls = site.urls();
    const target = urls[refused % urls.length];
    if (!entry || !target) continue;
    entry.busy = true;
    try {
      const response = await fetch(`${target}${site.itemPath(entry.uri)}`, {
        method: "POST",
        headers: { "Content-Type": "application/n-triples", "If-Match": '"stale"' },
        body: `<${entry.uri}> <http://purl.org/dc/terms/title> "refused" .\n`,
        signal: AbortSignal.timeout(30_000),
      });
      await response.body?.cancel();
      ledger.count(`stale update ${response.status}`);
      if (response.status === 412) {
        entry.writes!.push({ operation: "update", outcome: "refused" });
        refused++;
      } else {
        ledger.unexpected.push(`stale update of ${entry.uri}: ${response.status}`);
      }
    } catch {
      ledger.count("stale update no answer"); // the kill; nothing is recorded for the item
    } finally {
      entry.busy = false;
    }
  }
  return refused;
}

/** The feed's name for what a ledger write did. */
const FEED_OPERATION = { create: "created", update: "updated", delete: "deleted" } as const;

/**
 * The feed against the ledger: each event once (cursors grow), and per item the acknowledged
 * writes in order, then at most one change for a write whose answer was lost (an item with a
 * lost answer is never written to again, but for refused stale writes); nothing for a refused
 * write, nothing no writer wrote.
 */
export function auditFeed(events: ItemChange[], ledger: WriteLedger, collection: string): Verdict {
  const problems: string[] = [];
  const cursors = events.map((change) => Number(change.cursor));
  const repeated = cursors.filter((cursor, n) => n > 0 && cursor <= cursors[n - 1]);
  if (repeated.length > 0) problems.push(`cursors out of order or repeated: ${repeated.length}`);
  const byItem = new Map<string, ItemChange[]>();
  for (const change of events) {
    if (change.collection !== collection) continue;
    byItem.set(change.item, [...byItem.get(change.item) ?? [], change]);
  }
  const wrong: string[] = [];
  let acknowledged = 0;
  for (const entry of ledger.entries.values()) {
    const fed = byItem.get(entry.uri) ?? [];
    byItem.delete(entry.uri);
    const writes = entry.writes ?? [];
    const acked = writes.filter((write) => write.outcome === "acked");
    acknowledged += acked.length;
    const lost = writes.some((write) => write.outcome === "unknown");
    const expected = acked.map((write) =>
      `${FEED_OPERATION[write.operation]} ${write.operation === "delete" ? null : write.etag}`
    );
    const got = fed.map((change) => `${change.operation} ${change.etag}`);
    const matches = got.length >= expected.length &&
      expected.every((line, n) => got[n] === line) &&
      got.length - expected.length <= (lost ? 1 : 0);
    if (!matches) {
      wrong.push(`${entry.uri}: writes ${JSON.stringify(expected)} fed ${JSON.stringify(got)}`);
    }
  }
  if (wrong.length > 0) {
    problems.push(
      `${wrong.length} items whose feed disagrees with their writes, e.g. ${
        wrong.slice(0, 3).join("; ")
      }`,
    );
  }
  if (byItem.size > 0) {
    problems.push(
      `${byItem.size} items in the feed that no writer wrote: ${[...byItem.keys()][0]}`,
    );
  }
  return {
    problems,
    measured: [`${acknowledged} acknowledged writes checked against ${events.length} events`],
  };
}

/**
 * A webhook receiver against the feed, once it has every change or `deadline` passed: the
 * feed's changes in the feed's order (a repeat, with its id, at most one run of changes: the
 * run a killed holder had sent but not recorded), every signature the spec's under `secret`,
 * no id on two changes.
 */
export async function auditWebhook(
  name: string,
  receiver: Receiver,
  secret: string,
  feed: ItemChange[],
  deadline: number,
): Promise<Verdict> {
  const fedCursors = feed.map((change) => change.cursor);
  const firsts = () => new Set(receiver.accepted().map((change) => change.cursor));
  while (Date.now() < deadline && firsts().size < fedCursors.length) await sleep(250);
  const order = [...firsts()];
  const duplicates = receiver.accepted().length - order.length;
  const refused = receiver.received.filter((r) => r.answered === 500).length;
  const problems: string[] = [];
  if (JSON.stringify(order) !== JSON.stringify(fedCursors)) {
    problems.push(
      `webhook ${name} did not get the feed's changes in its order (${order.length} of ${fedCursors.length})`,
    );
  }
  if (duplicates > RUN_CHANGES) {
    problems.push(`webhook ${name}: ${duplicates} changes delivered twice (at most a run)`);
  }
  const byId = new Map<string, string>();
  let badSignatures = 0;
  let idMismatch = 0;
  for (const got of receiver.received) {
    if (!await verifySignature(secret, got)) badSignatures++;
    const cursor = (JSON.parse(got.body) as ItemChange).cursor;
    if ((byId.get(got.id) ?? cursor) !== cursor) idMismatch++;
    byId.set(got.id, cursor);
  }
  if (badSignatures > 0) problems.push(`webhook ${name}: ${badSignatures} bad signatures`);
  if (idMismatch > 0) problems.push(`webhook ${name}: ${idMismatch} ids on two changes`);
  return {
    problems,
    measured: [
      `webhook ${name}: ${order.length} of ${fedCursors.length} changes, ${duplicates} twice, ` +
      `${refused} attempts answered 500`,
    ],
  };
}

/** The scenario's two webhook endpoints: one answers 200 throughout, one 500 at first. */
export interface ScenarioReceivers {
  steady: Receiver;
  flaky: Receiver;
  secrets: { steady: string; flaky: string };
  /** The verdicts of both once they have the feed's changes or `deadline` passed. */
  audit(feed: ItemChange[], deadline: number): Promise<Verdict>;
  close(): Promise<void>;
}

/** Starts both receivers; the flaky one answers 500 for `flakyMs` from its first request. */
export async function startScenarioReceivers(flakyMs: number): Promise<ScenarioReceivers> {
  const steady = await Receiver.start();
  const flaky = await Receiver.start();
  let flakyUntil = 0;
  flaky.answer = () => {
    flakyUntil ||= Date.now() + flakyMs;
    return Date.now() < flakyUntil ? 500 : 200;
  };
  const secrets = { steady: newSecret(), flaky: newSecret() };
  return {
    steady,
    flaky,
    secrets,
    audit: async (feed, deadline) => {
      const verdicts = [
        await auditWebhook("steady", steady, secrets.steady, feed, deadline),
        await auditWebhook("flaky", flaky, secrets.flaky, feed, deadline),
      ];
      const problems = verdicts.flatMap((verdict) => verdict.problems);
      if (!flaky.received.some((r) => r.answered === 500)) {
        problems.push("the flaky receiver refused no attempt");
      }
      return { problems, measured: verdicts.flatMap((verdict) => verdict.measured) };
    },
    close: async () => {
      await steady.close();
      await flaky.close();
    },
  };
}
