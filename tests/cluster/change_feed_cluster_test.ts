/**
 * Acceptance of the change feed on several instances (issue 42): three service processes on
 * one Fuseki and one OpenSearch, 8 writers for 60 s spread over them, one instance `kill -9`ed
 * and another started in its place. A reader follows the feed as Server-Sent Events from
 * instance to instance, disconnecting and resuming by `Last-Event-ID` (at least five times,
 * the killed instance's connection included). Judged against the writers' ledger: every
 * acknowledged write is in the feed exactly once, each item's changes in the order its writes
 * were acknowledged, no change for a refused write, and a write whose answer was lost (the
 * kill) at most once. The store and the index end equal (tests/support/cluster.ts).
 *
 * The collection has two webhooks, receivers on loopback started by the test: one answers
 * 200 throughout, the other 500 for its first 30 s and then 200. Each ends with every change
 * of the feed, in the feed's order, each signature verified by the spec's algorithm written in
 * the test (tests/support/webhook_receiver.ts). The instance killed is the one delivering the
 * steady webhook, so another takes its deliveries over; a change arrives twice only when the
 * killed instance had sent it but not recorded it yet (at most one run of changes), with the
 * same `webhook-id`.
 *
 * Fuseki only: the store part on Virtuoso is `tests/integration/sparql_change_feed_test.ts`
 * and `tests/api/change_feed_test.ts`.
 */
import {
  Cluster,
  clusterEngines,
  type ClusterInstance,
  Findings,
  runWriteLoad,
  sleep,
  startWarmCluster,
  verifyCluster,
  WriteLedger,
} from "../support/cluster.ts";
import { EventReader } from "../support/event_stream.ts";
import { newSecret, Receiver, verifySignature } from "../support/webhook_receiver.ts";
import { uniqueWord } from "../support/item_versions.ts";
import type { ItemChange } from "../../src/store/change_feed.ts";
import { RUN_CHANGES } from "../../src/webhooks/webhook_deliverer.ts";

const engines = clusterEngines();
const LOAD_MS = 60_000;
const WRITERS = 8;
const MIX = { create: 4, update: 4, delete: 2 };
/** How long the reader stays on one connection before it resumes elsewhere. */
const SESSION_MS = 8_000;
/** How long the flaky receiver answers 500 from its first request. */
const FLAKY_MS = 30_000;
/** How long the receivers may take to catch up with the feed after the load. */
const DELIVERY_MS = 180_000;

/**
 * Follows the collection's feed from the start, one session at a time on the next live
 * instance, each resuming by `Last-Event-ID` from the last event seen.
 */
class FeedFollower {
  readonly events: ItemChange[] = [];
  /** Sessions after the first, each a reconnection with `Last-Event-ID`. */
  resumes = 0;
  /** Sessions cut by the service's end (the kill), not by the reader. */
  cut = 0;
  readonly #cluster: Cluster;
  #turn = 0;

  constructor(cluster: Cluster) {
    this.#cluster = cluster;
  }

  get last(): string | undefined {
    return this.events.at(-1)?.cursor;
  }

  /** One session: until `untilMs` passed, the stream ended, or `idleMs` without an event. */
  async session(untilMs: number, idleMs = Number.POSITIVE_INFINITY): Promise<void> {
    const live = this.#cluster.live();
    const instance = live[this.#turn++ % live.length];
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.last !== undefined) {
      headers["Last-Event-ID"] = this.last;
      this.resumes++;
    }
    let response: Response;
    try {
      response = await fetch(
        `${instance.url}/api/changes?collection=${encodeURIComponent(this.#cluster.collection)}`,
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
async function refuseStaleWrites(
  cluster: Cluster,
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
    const target = cluster.live()[refused % cluster.live().length];
    if (!entry || !target) continue;
    entry.busy = true;
    try {
      const response = await fetch(`${target.url}${cluster.itemPath(entry.uri)}`, {
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

/** The live instance holding the lease of the webhook to `url`, by its instance id. */
async function leaseHolder(cluster: Cluster, url: string): Promise<ClusterInstance | undefined> {
  const [first] = cluster.live();
  const response = await fetch(`${first.url}/api/admin/webhooks`);
  if (response.status !== 200) throw new Error(`webhooks: ${await response.text()}`);
  const endpoints = await response.json() as { url: string; lease: { holder: string } | null }[];
  const id = endpoints.find((endpoint) => endpoint.url === url)?.lease?.holder;
  for (const instance of cluster.live()) {
    const own = await Deno.readTextFile(`${instance.dataDir}/instance-id`).catch(() => "");
    if (own.trim() === id) return instance;
  }
  return undefined;
}

/** The feed's name for what a ledger write did. */
const FEED_OPERATION = { create: "created", update: "updated", delete: "deleted" } as const;

Deno.test({
  name: "[cluster/change-feed] 8 writers over three instances, one killed: the feed, resumed " +
    "by Last-Event-ID from instance to instance, has every acknowledged write exactly once",
  ignore: engines === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const steady = await Receiver.start();
    const flaky = await Receiver.start();
    let flakyUntil = 0;
    flaky.answer = () => {
      flakyUntil ||= Date.now() + FLAKY_MS;
      return Date.now() < flakyUntil ? 500 : 200;
    };
    const secrets = { steady: newSecret(), flaky: newSecret() };
    const cluster = await Cluster.create(engines!, {
      webhooks: {
        endpoints: [
          { url: steady.url, secret: secrets.steady },
          { url: flaky.url, secret: secrets.flaky },
        ],
        retryStartMs: 200,
        retryMaxMs: 2_000,
        timeoutMs: 1_000,
      },
    });
    const findings = new Findings("change-feed");
    const started = Date.now();
    try {
      const ledger = new WriteLedger();
      await startWarmCluster(cluster, ledger);
      const follower = new FeedFollower(cluster);
      const loadEnds = Date.now() + LOAD_MS;
      const following = (async () => {
        while (Date.now() < loadEnds) {
          await follower.session(Math.min(loadEnds, Date.now() + SESSION_MS));
        }
      })();
      const load = runWriteLoad(cluster, ledger, {
        targets: () => cluster.live().map((instance) => instance.url),
        writes: 1_000_000,
        maxMs: LOAD_MS,
        concurrency: WRITERS,
        mix: MIX,
        label: "feed",
        word: uniqueWord(),
      });
      const refusing = refuseStaleWrites(cluster, ledger, loadEnds);
      // A third of the way in, the instance delivering the steady webhook dies (so another
      // takes its deliveries over); a new one takes its place.
      await sleep(LOAD_MS / 3);
      const holder = await leaseHolder(cluster, steady.url);
      const victim: ClusterInstance = holder ?? cluster.live()[1];
      await cluster.kill(victim);
      findings.measured(
        `killed ${victim.name} at ${Date.now() - started} ms (${
          holder ? "it delivered the steady webhook" : "no instance held the steady webhook"
        })`,
      );
      await cluster.startInstance();
      const sent = await load;
      const refused = await refusing;
      await following;
      findings.measured(
        `load: ${sent.sent} writes in ${sent.ms} ms: ${JSON.stringify(ledger.statuses)}`,
      );
      findings.check(refused > 0, `${refused} stale writes refused (some must be)`);
      findings.check(
        ledger.unexpected.length === 0,
        `unexpected answers: ${ledger.unexpected.slice(0, 3).join("; ")}`,
      );
      // Caught up: a last session until the feed is quiet.
      await follower.session(Date.now() + 60_000, 3_000);
      findings.measured(
        `feed: ${follower.events.length} events, ${follower.resumes} resumes by Last-Event-ID ` +
          `(${follower.cut} cut by the service)`,
      );
      findings.check(follower.resumes >= 5, `${follower.resumes} resumes (at least 5)`);

      // Each event once: cursors never repeat, and grow within the collection.
      const cursors = follower.events.map((change) => Number(change.cursor));
      const repeated = cursors.filter((cursor, n) => n > 0 && cursor <= cursors[n - 1]);
      findings.check(repeated.length === 0, `cursors out of order or repeated: ${repeated.length}`);

      // Per item: the acknowledged writes in order, then at most one change for a last write
      // whose answer was lost (an item with a lost answer is never written to again).
      const byItem = new Map<string, ItemChange[]>();
      for (const change of follower.events) {
        if (change.collection !== cluster.collection) continue;
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
        // Only refused writes may follow a lost answer (the writers leave such an item be).
        const lostLast = writes.some((write) => write.outcome === "unknown");
        const expected = acked.map((write) =>
          `${FEED_OPERATION[write.operation]} ${write.operation === "delete" ? null : write.etag}`
        );
        const got = fed.map((change) => `${change.operation} ${change.etag}`);
        const matches = got.length >= expected.length &&
          expected.every((line, n) => got[n] === line) &&
          got.length - expected.length <= (lostLast ? 1 : 0);
        if (!matches) {
          wrong.push(`${entry.uri}: writes ${JSON.stringify(expected)} fed ${JSON.stringify(got)}`);
        }
      }
      findings.measured(`${acknowledged} acknowledged writes checked against the feed`);
      findings.check(
        wrong.length === 0,
        `${wrong.length} items whose feed disagrees with their writes${
          wrong.length ? `, e.g. ${wrong.slice(0, 3).join("; ")}` : ""
        }`,
      );
      findings.check(
        byItem.size === 0,
        `${byItem.size} items in the feed that no writer wrote: ${[...byItem.keys()].slice(0, 3)}`,
      );
      findings.report(
        "after the load",
        await verifyCluster(cluster, ledger, { history: false }),
      );

      // Webhooks: each receiver ends with the feed's changes, in its order.
      const fedCursors = follower.events.map((change) => change.cursor);
      const waitStarted = Date.now();
      for (const [name, receiver] of [["steady", steady], ["flaky", flaky]] as const) {
        const firstOf = () => new Set(receiver.accepted().map((change) => change.cursor));
        while (Date.now() - waitStarted < DELIVERY_MS && firstOf().size < fedCursors.length) {
          await sleep(250);
        }
        const accepted = receiver.accepted();
        const seen = new Set<string>();
        const order: string[] = [];
        for (const change of accepted) {
          if (seen.has(change.cursor)) continue;
          seen.add(change.cursor);
          order.push(change.cursor);
        }
        const duplicates = accepted.length - order.length;
        const refused = receiver.received.filter((r) => r.answered === 500).length;
        findings.measured(
          `webhook ${name}: ${order.length} of ${fedCursors.length} changes in ${
            ((Date.now() - started) / 1000).toFixed(1)
          } s from the start, ${duplicates} twice, ${refused} attempts answered 500`,
        );
        findings.check(
          JSON.stringify(order) === JSON.stringify(fedCursors),
          `webhook ${name} got the feed's changes in its order (${order.length} of ${fedCursors.length})`,
        );
        // At least once: only a run the killed holder had sent but not recorded comes again.
        findings.check(
          duplicates <= RUN_CHANGES,
          `webhook ${name}: ${duplicates} changes delivered twice (at most a run: ${RUN_CHANGES})`,
        );
        const byId = new Map<string, string>();
        let badSignatures = 0;
        let idMismatch = 0;
        for (const got of receiver.received) {
          if (!await verifySignature(secrets[name], got)) badSignatures++;
          const cursor = (JSON.parse(got.body) as ItemChange).cursor;
          if ((byId.get(got.id) ?? cursor) !== cursor) idMismatch++;
          byId.set(got.id, cursor);
        }
        findings.check(badSignatures === 0, `webhook ${name}: ${badSignatures} bad signatures`);
        findings.check(idMismatch === 0, `webhook ${name}: ${idMismatch} ids on two changes`);
      }
      findings.check(
        flaky.received.some((r) => r.answered === 500),
        "the flaky receiver refused some attempts",
      );
    } catch (error) {
      findings.check(false, `stopped early: ${error instanceof Error ? error.stack : error}`);
    } finally {
      findings.measured(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      try {
        findings.done(cluster);
      } finally {
        await cluster.close();
        await steady.close();
        await flaky.close();
      }
    }
  },
});
