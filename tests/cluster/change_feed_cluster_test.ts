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
import { uniqueWord } from "../support/item_versions.ts";
import {
  auditFeed,
  FeedFollower,
  type FeedSite,
  refuseStaleWrites,
  startScenarioReceivers,
} from "../support/feed_scenario.ts";

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

Deno.test({
  name: "[cluster/change-feed] 8 writers over three instances, one killed: the feed, resumed " +
    "by Last-Event-ID from instance to instance, has every acknowledged write exactly once",
  ignore: engines === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const receivers = await startScenarioReceivers(FLAKY_MS);
    const { steady, flaky, secrets } = receivers;
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
      const site: FeedSite = {
        collection: cluster.collection,
        urls: () => cluster.live().map((instance) => instance.url),
        itemPath: (uri) => cluster.itemPath(uri),
      };
      const follower = new FeedFollower(site);
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
      const refusing = refuseStaleWrites(site, ledger, loadEnds);
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

      const fed = auditFeed(follower.events, ledger, cluster.collection);
      for (const line of fed.measured) findings.measured(line);
      for (const problem of fed.problems) findings.check(false, problem);
      findings.report(
        "after the load",
        await verifyCluster(cluster, ledger, { history: false }),
      );

      // Webhooks: each receiver ends with the feed's changes, in its order.
      const hooks = await receivers.audit(follower.events, Date.now() + DELIVERY_MS);
      for (const line of hooks.measured) {
        findings.measured(`${line} (${((Date.now() - started) / 1000).toFixed(1)} s in)`);
      }
      for (const problem of hooks.problems) findings.check(false, problem);
    } catch (error) {
      findings.check(false, `stopped early: ${error instanceof Error ? error.stack : error}`);
    } finally {
      findings.measured(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      try {
        findings.done(cluster);
      } finally {
        await cluster.close();
        await receivers.close();
      }
    }
  },
});
