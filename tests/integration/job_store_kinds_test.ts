/**
 * The job store's kinds and locks, on both implementations (the SQLite file, and the SPARQL
 * store's metadata graph on each real store, `[fuseki] …` and `[virtuoso] …`, where two
 * stores stand for two instances): an
 * import locks its collection only, kinds never see each other's jobs, and on the shared
 * store a job whose heartbeat ends frees its lock and is marked failed by another instance.
 */
import { strict as assert } from "node:assert";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { SparqlJobStore } from "../../src/job_stores/sparql_job_store.ts";
import { SqliteKindJobStore } from "../../src/job_stores/sqlite_kind_job_store.ts";
import { SqliteJobStore } from "../../src/job_stores/sqlite_job_store.ts";
import type { JobStore, StoredJob } from "../../src/jobs/job_store.ts";
import type { IndexJob } from "../../src/indexing/index_job.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { sparqlStoreTests } from "../support/sparql_stores.ts";

interface TestJob extends StoredJob {
  collection: string;
}

function job(collection: string): TestJob {
  return {
    id: crypto.randomUUID(),
    collection,
    state: "running",
    startedAt: new Date().toISOString(),
    finishedAt: null,
    errors: [],
  };
}

function indexJob(): IndexJob {
  return {
    ...job("x"),
    scope: { type: "collection", uri: "https://data.example.org/collection/c" },
    clear: false,
    total: 0,
    processed: 0,
    indexed: 0,
    deleted: 0,
    failed: 0,
  };
}

/** Locks: one live job per lock; other locks and the other kind are not blocked. */
async function checkLocks(
  a: JobStore<TestJob>,
  b: JobStore<TestJob>,
  index: JobStore<IndexJob>,
): Promise<void> {
  const first = job("c1");
  assert.deepEqual(await a.tryStart(first, "instance-a", "c1"), { started: true });
  assert.deepEqual(await b.tryStart(job("c1"), "instance-b", "c1"), {
    started: false,
    runningJob: first.id,
  });
  const other = job("c2");
  assert.deepEqual(await b.tryStart(other, "instance-b", "c2"), { started: true });
  assert.equal((await b.live("c1"))?.id, first.id);
  assert.deepEqual(await index.tryStart(indexJob(), "instance-a"), { started: true });
  assert.equal(await index.get(first.id), undefined, "kinds do not see each other's jobs");
  assert.deepEqual(
    (await a.recent(10)).map((found) => found.id).sort(),
    [first.id, other.id].sort(),
  );
  const ended = { ...first, state: "succeeded" as const, finishedAt: new Date().toISOString() };
  assert.equal(await a.save({ job: ended, rebuilds: [] }, "instance-a"), true);
  assert.equal(await a.save({ job: ended, rebuilds: [] }, "instance-a"), false, "ended");
  assert.deepEqual(await b.tryStart(job("c1"), "instance-b", "c1"), { started: true });
}

Deno.test("job store kinds and locks: SQLite", async () => {
  const db = openLocalDatabase(":memory:");
  try {
    const imports = new SqliteKindJobStore<TestJob>(db, "import");
    await checkLocks(imports, imports, new SqliteJobStore(db));
    // A restart fails every live job of the kind.
    const lost = await imports.failLost("restarted");
    assert.equal(lost.length, 2);
    assert.equal(await imports.live(), undefined);
  } finally {
    db.close();
  }
});

sparqlStoreTests(
  "job store kinds and locks: SPARQL store, two instances, heartbeats",
  async (endpoints) => {
    const run = `urn:rcs-test:job-kinds-${crypto.randomUUID()}`;
    const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 30_000, retries: 0 });
    // Long enough that the lock checks (a dozen requests) end within one lease on a busy
    // machine: a lease that ran out before `save` fails it (seen with two suites running).
    const leaseMs = 5000;
    const store = () => new SparqlJobStore<TestJob>(client, `${run}:meta`, leaseMs, "import-job");
    const [a, b] = [store(), store()];
    try {
      await checkLocks(a, b, new SparqlJobStore(client, `${run}:meta`, leaseMs));
      // Instance b stops renewing: after a lease its lock is free and a reads its jobs failed.
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 200));
      const next = job("c2");
      assert.deepEqual(await a.tryStart(next, "instance-a", "c2"), { started: true });
      const lost = await a.failLost();
      assert.ok(lost.length >= 1);
      assert.ok(lost.every(({ job }) => job.id !== next.id));
      assert.equal((await a.live("c2"))?.id, next.id);
    } finally {
      await client.update(`DROP SILENT GRAPH <${run}:meta>`);
    }
  },
);
