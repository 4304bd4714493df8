/**
 * Acceptance of the change feed on the embedded default (issue 42), the scenario the three
 * instances on Fuseki run (tests/cluster/change_feed_cluster_test.ts) on one process: 8 writers
 * for 60 s, the process `kill -9`ed a third of the way in and started again on its data
 * directory. A reader follows the feed as Server-Sent Events, disconnecting and resuming by
 * `Last-Event-ID` (at least five times, the kill's cut included); stale writes are refused on
 * purpose. Judged against the writers' ledger: every acknowledged write exactly once, each
 * item's changes in the order of its writes, none for a refused write, at most one for a write
 * whose answer the kill took. Two webhooks (200 throughout; 500 for 30 s, then 200) end with
 * every change of the feed, in its order, each signature verified by the spec's algorithm.
 */
import { strict as assert } from "node:assert";
import { runWriteLoad, sleep, WriteLedger } from "../support/cluster.ts";
import {
  auditFeed,
  FeedFollower,
  type FeedSite,
  refuseStaleWrites,
  startScenarioReceivers,
} from "../support/feed_scenario.ts";
import { uniqueWord } from "../support/item_versions.ts";
import { type ServiceProcess, startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION } from "../support/service.ts";

const LOAD_MS = 60_000;
const WRITERS = 8;
const MIX = { create: 4, update: 4, delete: 2 };
const SESSION_MS = 8_000;
const FLAKY_MS = 30_000;
const DELIVERY_MS = 120_000;
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));

Deno.test({
  name: "[change-feed/embedded] 8 writers for 60 s, kill -9 and restart: the feed resumed by " +
    "Last-Event-ID has every acknowledged write once; both webhooks get it in order",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const receivers = await startScenarioReceivers(FLAKY_MS);
    const { steady, flaky, secrets } = receivers;
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-feed-kill-" });
    const yamlPath = `${dataDir}.yml`;
    await Deno.writeTextFile(
      yamlPath,
      SHIPPED.replace(
        "        itemUriTemplate: https://data.example.org/id/document/{uuid}\n",
        "        itemUriTemplate: https://data.example.org/id/document/{uuid}\n" +
          "        webhooks:\n" +
          `          - { url: "${steady.url}", secret: "${secrets.steady}" }\n` +
          `          - { url: "${flaky.url}", secret: "${secrets.flaky}" }\n`,
      ),
    );
    const env = {
      SERVICE_DATA_DIR: dataDir,
      CUSTOMER_YML: yamlPath,
      SERVICE_WEBHOOKS_RETRY_START_MS: "200",
      SERVICE_WEBHOOKS_RETRY_MAX_MS: "2000",
    };
    let service: ServiceProcess | undefined = await startServiceProcess(env);
    const run = crypto.randomUUID();
    const site: FeedSite & { itemUri(label: string): string } = {
      collection: DEMO_COLLECTION,
      urls: () => service ? [service.url] : [],
      itemPath: (uri) =>
        `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}` +
        (uri === undefined ? "" : `&item=${encodeURIComponent(uri)}`),
      itemUri: (label) => `https://data.example.org/id/feed-kill/${run}/${label}`,
    };
    const log: string[] = [];
    try {
      const ledger = new WriteLedger();
      const follower = new FeedFollower(site);
      const started = Date.now();
      const loadEnds = started + LOAD_MS;
      const following = (async () => {
        while (Date.now() < loadEnds) {
          await follower.session(Math.min(loadEnds, Date.now() + SESSION_MS));
        }
      })();
      const refusing = refuseStaleWrites(site, ledger, loadEnds);
      const word = uniqueWord();
      const load = (label: string, maxMs: number) =>
        runWriteLoad(site, ledger, {
          targets: () => site.urls(),
          writes: 1_000_000,
          maxMs,
          concurrency: WRITERS,
          mix: MIX,
          label,
          word,
        });
      // A third of the way in, while the writers write, the process dies; the writers stop
      // (their writes in flight have no answer) and go on once it is back.
      const before = load("before", LOAD_MS);
      await sleep(LOAD_MS / 3);
      const dying = service;
      service = undefined;
      await dying.kill();
      await before;
      service = await startServiceProcess(env);
      log.push(`killed and restarted at ${Date.now() - started} ms`);
      await load("after", Math.max(0, loadEnds - Date.now()));
      const refused = await refusing;
      await following;
      // Caught up: a last session until the feed is quiet.
      await follower.session(Date.now() + 60_000, 3_000);
      log.push(
        `load: ${JSON.stringify(ledger.statuses)}; feed: ${follower.events.length} events, ` +
          `${follower.resumes} resumes by Last-Event-ID (${follower.cut} cut by the service)`,
      );
      assert.ok(refused > 0, "some stale writes were refused");
      assert.deepEqual(ledger.unexpected, []);
      assert.ok(follower.resumes >= 5, `${follower.resumes} resumes`);
      assert.ok(follower.cut >= 1, "the kill cut a session");
      const fed = auditFeed(follower.events, ledger, DEMO_COLLECTION);
      log.push(...fed.measured);
      assert.deepEqual(fed.problems, []);
      const hooks = await receivers.audit(follower.events, Date.now() + DELIVERY_MS);
      log.push(...hooks.measured);
      assert.deepEqual(hooks.problems, []);
    } finally {
      console.log(log.join("\n"));
      await service?.stop();
      await receivers.close();
      await Deno.remove(dataDir, { recursive: true });
      await Deno.remove(yamlPath).catch(() => {});
    }
  },
});
