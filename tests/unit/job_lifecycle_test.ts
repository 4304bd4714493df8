/**
 * The job lifecycle (src/jobs/job_lifecycle.ts) on a job store held in memory with the
 * shared store's rules (a live job's claim ends one lease after its last save): one sweep
 * at a time, close waits for a sweep in flight, and a job whose instance stopped renewing
 * its claim is marked failed by another instance's sweep, while its own instance is told to
 * stop once it finds out.
 */
import { strict as assert } from "node:assert";
import { JobLifecycle, type RunningJob } from "../../src/jobs/job_lifecycle.ts";
import {
  abandonedMessage,
  failedJob,
  INTERRUPTED_MESSAGE,
  isLive,
  type JobRecord,
  type JobStore,
  type StartDecision,
  type StoredJob,
} from "../../src/jobs/job_store.ts";

type TestJob = StoredJob & { steps: number };
type Held = string;

interface Entry {
  record: JobRecord<TestJob, Held>;
  owner: string;
  lock?: string;
  heartbeat: number;
}

/** The shared store's rules, in memory; `failLost` can be held up to make a sweep slow. */
class MemoryJobStore implements JobStore<TestJob, Held> {
  readonly entries = new Map<string, Entry>();
  failLostCalls = 0;
  /** While set, `failLost` waits for it: a slow sweep. */
  gate?: Promise<void>;
  readonly #leaseMs: number;

  constructor(leaseMs: number) {
    this.#leaseMs = leaseMs;
  }

  #isLive(entry: Entry, now: number): boolean {
    return isLive(entry.record.job) && entry.heartbeat > now - this.#leaseMs;
  }

  tryStart(job: TestJob, owner: string, lock?: string): Promise<StartDecision> {
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (entry.lock === lock && this.#isLive(entry, now)) {
        return Promise.resolve({ started: false, runningJob: entry.record.job.id });
      }
    }
    const record = { job: structuredClone(job), rebuilds: [] };
    this.entries.set(job.id, { record, owner, lock, heartbeat: now });
    return Promise.resolve({ started: true });
  }

  save(record: JobRecord<TestJob, Held>, owner: string): Promise<boolean> {
    const now = Date.now();
    const entry = this.entries.get(record.job.id);
    if (!entry || entry.owner !== owner || !this.#isLive(entry, now)) {
      return Promise.resolve(false);
    }
    entry.record = structuredClone(record);
    entry.heartbeat = now;
    return Promise.resolve(true);
  }

  get(id: string): Promise<TestJob | undefined> {
    return Promise.resolve(structuredClone(this.entries.get(id)?.record.job));
  }

  recent(limit: number): Promise<TestJob[]> {
    const jobs = [...this.entries.values()].map((entry) => structuredClone(entry.record.job));
    return Promise.resolve(jobs.reverse().slice(0, limit));
  }

  live(lock?: string): Promise<TestJob | undefined> {
    const now = Date.now();
    const entry = [...this.entries.values()].find((entry) =>
      entry.lock === lock && this.#isLive(entry, now)
    );
    return Promise.resolve(entry && structuredClone(entry.record.job));
  }

  async failLost(restartedOwner?: string): Promise<JobRecord<TestJob, Held>[]> {
    this.failLostCalls++;
    await this.gate;
    const now = Date.now();
    const lost: JobRecord<TestJob, Held>[] = [];
    for (const entry of this.entries.values()) {
      if (!isLive(entry.record.job)) continue;
      const restarted = entry.owner === restartedOwner;
      if (!restarted && entry.heartbeat > now - this.#leaseMs) continue;
      lost.push(structuredClone(entry.record));
      const message = restarted ? INTERRUPTED_MESSAGE : abandonedMessage(this.#leaseMs);
      entry.record = {
        job: failedJob(entry.record.job, message, new Date(now).toISOString()),
        rebuilds: [],
      };
    }
    return lost;
  }
}

/** `store` as an instance sees it; `freeze()` makes its saves hang, as if it stopped. */
function instanceView(store: MemoryJobStore) {
  let thaw: (() => void) | undefined;
  let frozen: Promise<void> | undefined;
  const view: JobStore<TestJob, Held> = {
    tryStart: (job, owner, lock) => store.tryStart(job, owner, lock),
    save: async (record, owner) => {
      await frozen;
      return await store.save(record, owner);
    },
    get: (id) => store.get(id),
    recent: (limit) => store.recent(limit),
    live: (lock) => store.live(lock),
    failLost: (owner) => store.failLost(owner),
  };
  return {
    view,
    freeze() {
      const gate = Promise.withResolvers<void>();
      frozen = gate.promise;
      thaw = gate.resolve;
    },
    thaw() {
      frozen = undefined;
      thaw?.();
    },
  };
}

function lifecycle(
  jobs: JobStore<TestJob, Held>,
  options: { owner: string; leaseMs: number; sweepIntervalMs?: number },
  onLost?: (record: JobRecord<TestJob, Held>) => Promise<void>,
): JobLifecycle<TestJob, Held> {
  return new JobLifecycle({ jobs, ...options }, {
    name: "test job",
    stopReasons: { lost: "claim lost", shutdown: "shutting down" },
    onLost,
  });
}

function newJob(): TestJob {
  return {
    id: crypto.randomUUID(),
    state: "running",
    startedAt: new Date().toISOString(),
    finishedAt: null,
    errors: [],
    steps: 0,
  };
}

/** Work that runs until told to stop, then records its end. */
function untilStopped(
  life: JobLifecycle<TestJob, Held>,
): (running: RunningJob<TestJob, Held>) => Promise<void> {
  return async (running) => {
    await running.stopping;
    const ended = failedJob(running.job, running.stopped!, new Date().toISOString());
    Object.assign(running.job, ended);
    await life.save(running);
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(5);
  }
}

Deno.test("a slow sweep is not started twice; the next tick after it sweeps again", async () => {
  const store = new MemoryJobStore(1000);
  const slow = Promise.withResolvers<void>();
  store.gate = slow.promise;
  const life = lifecycle(store, { owner: "a", leaseMs: 1000, sweepIntervalMs: 5 });
  try {
    await sleep(60); // a dozen ticks while the start-up sweep hangs
    assert.equal(store.failLostCalls, 1);
    store.gate = undefined;
    slow.resolve();
    await life.recovered;
    await until(() => store.failLostCalls >= 2);
  } finally {
    await life.close();
  }
});

Deno.test("close waits for a sweep in flight, and no sweep starts after it", async () => {
  const store = new MemoryJobStore(1000);
  const life = lifecycle(store, { owner: "a", leaseMs: 1000, sweepIntervalMs: 5 });
  await life.recovered;
  const slow = Promise.withResolvers<void>();
  store.gate = slow.promise;
  const calls = store.failLostCalls;
  await until(() => store.failLostCalls > calls); // a timed sweep is in flight
  let closed = false;
  const closing = life.close().then(() => closed = true);
  await sleep(30);
  assert.equal(closed, false, "close returned while a sweep was in flight");
  slow.resolve();
  await closing;
  const after = store.failLostCalls;
  await sleep(30);
  assert.equal(store.failLostCalls, after);
});

Deno.test("close stops the running job and waits for it to end", async () => {
  const store = new MemoryJobStore(1000);
  const life = lifecycle(store, { owner: "a", leaseMs: 1000 });
  const started = await life.start(newJob(), untilStopped(life));
  assert.ok(started.started);
  await life.close();
  assert.equal(started.running.stopped, "shutting down");
  assert.deepEqual(life.running(), []);
  const recorded = await store.get(started.running.job.id);
  assert.equal(recorded?.state, "failed");
  await assert.rejects(life.start(newJob(), untilStopped(life)), /stopping/);
});

Deno.test("a lock held by a live job refuses a second start, on any instance", async () => {
  const store = new MemoryJobStore(1000);
  const a = lifecycle(store, { owner: "a", leaseMs: 1000 });
  const b = lifecycle(store, { owner: "b", leaseMs: 1000 });
  try {
    const first = await a.start(newJob(), untilStopped(a), "collection-1");
    assert.ok(first.started);
    const second = await b.start(newJob(), untilStopped(b), "collection-1");
    assert.deepEqual(second, { started: false, runningJob: first.running.job.id });
    const other = await b.start(newJob(), untilStopped(b), "collection-2");
    assert.ok(other.started);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("an expired lease is recovered by another instance; its owner then stops", async () => {
  const leaseMs = 300;
  const store = new MemoryJobStore(leaseMs);
  const a = instanceView(store);
  const runnerA = lifecycle(a.view, { owner: "a", leaseMs });
  const cleaned: JobRecord<TestJob, Held>[] = [];
  let runnerB: JobLifecycle<TestJob, Held> | undefined;
  try {
    const started = await runnerA.start(newJob(), async (running) => {
      running.rebuilds.push("index-1");
      await runnerA.save(running);
      await untilStopped(runnerA)(running);
    });
    assert.ok(started.started);
    const id = started.running.job.id;
    await until(() => store.entries.get(id)?.record.rebuilds.length === 1);
    a.freeze(); // instance a stops answering: its heartbeats no longer reach the store
    runnerB = lifecycle(
      store,
      { owner: "b", leaseMs, sweepIntervalMs: 50 },
      (record) => Promise.resolve(void cleaned.push(record)),
    );
    await until(() => cleaned.length === 1);
    assert.equal(cleaned[0].job.id, id);
    assert.deepEqual(cleaned[0].rebuilds, ["index-1"], "the lost job's holdings, to release");
    const recorded = await store.get(id);
    assert.equal(recorded?.state, "failed");
    assert.equal(recorded?.errors.at(-1)?.message, abandonedMessage(leaseMs));
    assert.equal(await store.live(), undefined);
    // Instance a comes back: its next save is refused, and the job is told to stop.
    a.thaw();
    await until(() => started.running.stopped !== undefined);
    assert.equal(started.running.stopped, "claim lost");
    await started.done;
    assert.equal((await store.get(id))?.errors.at(-1)?.message, abandonedMessage(leaseMs));
  } finally {
    a.thaw();
    await runnerA.close();
    await runnerB?.close();
  }
});

Deno.test("at start-up the jobs this instance ran before a restart are marked failed", async () => {
  const store = new MemoryJobStore(60_000);
  await store.tryStart(newJob(), "a");
  const cleaned: string[] = [];
  const life = lifecycle(
    store,
    { owner: "a", leaseMs: 60_000 },
    (record) => Promise.resolve(void cleaned.push(record.job.id)),
  );
  try {
    await life.recovered;
    assert.equal(cleaned.length, 1);
    const recorded = await store.get(cleaned[0]);
    assert.equal(recorded?.state, "failed");
    assert.equal(recorded?.errors.at(-1)?.message, INTERRUPTED_MESSAGE);
  } finally {
    await life.close();
  }
});
