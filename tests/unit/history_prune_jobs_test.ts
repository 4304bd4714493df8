/**
 * The pruning job's own logic (`src/items/history_prune_jobs.ts`) over the real SQLite history
 * and job store in memory: it goes through a collection in several steps whose size stays
 * within bounds, its progress only grows and ends at its total, one job runs at a time
 * (`prune-running`), a job stopped by shutdown ends failed keeping what it removed, and a
 * history that cannot prune answers `history-unsupported`. The HTTP suite
 * (tests/api/history_retention_test.ts) checks what the routes make of it.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { SqliteItemHistory } from "../../src/store_embedded/sqlite_item_history.ts";
import { SqliteKindJobStore } from "../../src/job_stores/sqlite_kind_job_store.ts";
import { Catalog } from "../../src/catalog/catalog.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { BUILT_IN_CUSTOMER_YML } from "../../src/config/defaults.ts";
import { HistoryPruneRunner, type PruneJob } from "../../src/items/history_prune_jobs.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import type { ItemHistory } from "../../src/store/item_history.ts";

const { namedNode, literal, quad } = DataFactory;
const COLLECTION = "https://data.example.org/collection/documents";

type Prune = NonNullable<ItemHistory["prune"]>;

/** `history` with its pruning steps passed through `prune` (methods bound: private fields). */
function withPrune(history: SqliteItemHistory, prune: Prune): ItemHistory {
  return {
    list: history.list.bind(history),
    read: history.read.bind(history),
    at: history.at.bind(history),
    latest: history.latest.bind(history),
    versionsWritten: history.versionsWritten.bind(history),
    countItems: history.countItems.bind(history),
    prune,
  };
}

/** A history of `items` items of `versions` versions each, in memory. */
function setUp(items: number, versions: number) {
  const db = openLocalDatabase(":memory:");
  const history = new SqliteItemHistory(db);
  db.exec("BEGIN");
  for (let i = 0; i < items; i++) {
    const uri = `https://data.example.org/id/unit/${String(i).padStart(5, "0")}`;
    for (let v = 1; v <= versions; v++) {
      history.record({
        collection: COLLECTION,
        uri,
        graph: { hash: `h${v}`, quads: [quad(namedNode(uri), namedNode(uri), literal(`v${v}`))] },
        time: new Date(Date.UTC(2026, 0, 1, 0, 0, v)).toISOString(),
        principal: "local",
        operation: v === 1 ? "create" : "update",
      });
    }
  }
  db.exec("COMMIT");
  const config = parseConfigText(
    BUILT_IN_CUSTOMER_YML,
    "test",
    (name) => name === "SERVICE_HISTORY_RETENTION" ? "last:1" : undefined,
  );
  const catalog = new Catalog(config.workspaces);
  const runner = (over: ItemHistory = history) =>
    new HistoryPruneRunner({
      jobs: new SqliteKindJobStore<PruneJob>(db, "history-prune"),
      history: over,
      catalog,
      defaultRetention: config.service.history.retention,
      leaseMs: 30_000,
    });
  return { db, history, runner };
}

Deno.test("a prune goes through the collection in bounded steps; its progress only grows and ends at its total", async () => {
  const { db, history, runner } = setUp(3_000, 3);
  const steps: { limit: number; processed: number }[] = [];
  const started: { id?: string } = {};
  const spy = withPrune(history, async (...args: Parameters<Prune>) => {
    // The job as its GET shows it, before this step.
    const seen = started.id === undefined ? 0 : (await prunes.find(started.id))!.processed;
    steps.push({ limit: args[2].limit, processed: seen });
    return await history.prune(...args);
  });
  const prunes = runner(spy);
  const { job, done } = await prunes.start(COLLECTION);
  started.id = job.id;
  const ended = await done;
  assert.equal(ended.state, "succeeded", JSON.stringify(ended.errors));
  assert.equal(ended.total, 3_000);
  assert.equal(ended.processed, 3_000);
  assert.equal(ended.pruned, 6_000);
  assert.equal(history.versionsPruned(), 6_000);
  assert.ok(steps.length >= 3, `${steps.length} steps`);
  for (const step of steps) assert.ok(step.limit >= 10 && step.limit <= 2_000, `${step.limit}`);
  for (let i = 1; i < steps.length; i++) {
    assert.ok(steps[i].processed > steps[i - 1].processed || i === 1, JSON.stringify(steps));
  }
  const versionsLeft = db.prepare("SELECT COUNT(*) AS n FROM item_versions").get() as { n: number };
  assert.equal(versionsLeft.n, 3_000, "each item's newest version, and only it, is left");
  const record = await prunes.find(job.id);
  assert.deepEqual(
    { state: record!.state, processed: record!.processed },
    { state: "succeeded", processed: 3_000 },
  );
  await prunes.close();
});

Deno.test("one prune at a time: a second start while one runs is prune-running; shutdown fails the running one, keeping what it removed", async () => {
  const { history, runner } = setUp(500, 3);
  const release = Promise.withResolvers<void>();
  let calls = 0;
  const held = withPrune(history, async (...args: Parameters<Prune>) => {
    const step = await history.prune(...args);
    if (++calls === 1) await release.promise; // holds the job after its first step
    return step;
  });
  const prunes = runner(held);
  const first = await prunes.start();
  await assert.rejects(
    prunes.start(COLLECTION),
    (error: unknown) => isProblem(error, "prune-running"),
  );
  const closing = prunes.close();
  release.resolve();
  await closing;
  const ended = await first.done;
  assert.equal(ended.state, "failed");
  assert.ok(ended.pruned > 0 && ended.pruned < 1_000, `${ended.pruned} removed before the stop`);
  assert.equal(history.versionsPruned(), ended.pruned);
});

Deno.test("a history that cannot prune answers history-unsupported, and no job is recorded", async () => {
  const { history, runner } = setUp(1, 1);
  const bare: ItemHistory = {
    list: history.list.bind(history),
    read: history.read.bind(history),
    at: history.at.bind(history),
    latest: history.latest.bind(history),
    versionsWritten: () => 0,
  };
  const prunes = runner(bare);
  await assert.rejects(prunes.start(), (error: unknown) => isProblem(error, "history-unsupported"));
  assert.deepEqual(await prunes.recent(10), []);
  await prunes.close();
});
