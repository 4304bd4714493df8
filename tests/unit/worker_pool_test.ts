import { strict as assert } from "node:assert";
import { DomainError } from "../../src/errors/domain_error.ts";
import { TASKS_PER_WORKER, WorkerPool } from "../../src/items/worker_pool.ts";
import { setLogSink } from "../../src/log/logger.ts";
import type { TestTask } from "../support/pool_test_worker.ts";

const WORKER = new URL("../support/pool_test_worker.ts", import.meta.url);

function pool(size: number, maxQueue: number) {
  return new WorkerPool<TestTask, string>({ url: WORKER, size, maxQueue, init: "n", name: "test" });
}

Deno.test("tasks run on the workers, which get their setup first", async () => {
  const workers = pool(2, 10);
  try {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((value) => workers.run({ kind: "echo", value })),
    );
    assert.deepEqual(answers, ["n1", "n2", "n3", "n4", "n5"]);
    assert.deepEqual(workers.stats(), { size: 2, running: 0, queued: 0, done: 5 });
    assert.equal(workers.idle, true);
  } finally {
    workers.close();
  }
});

Deno.test("a full queue refuses a task with 503 workers-busy, unless its caller waits", async () => {
  const workers = pool(1, 2);
  try {
    const slow = (value: number) => workers.run({ kind: "echo", value, delayMs: 200 });
    // The worker holds TASKS_PER_WORKER; two more fill the queue.
    const held = Array.from({ length: TASKS_PER_WORKER + 2 }, (_, i) => slow(i));
    await assert.rejects(workers.run({ kind: "echo", value: 99 }), (error: unknown) => {
      assert.ok(error instanceof DomainError);
      assert.equal(error.kind, "unavailable");
      assert.equal(error.slug, "workers-busy");
      return true;
    });
    assert.equal(workers.stats().queued, 2);
    // A waiting caller gets in once there is room, and nothing beyond the bound is queued.
    const waited = workers.run({ kind: "echo", value: 7 }, { wait: true });
    assert.equal(workers.stats().queued, 2);
    assert.equal(await waited, "n7");
    assert.deepEqual(await Promise.all(held), held.map((_, i) => `n${i}`));
  } finally {
    workers.close();
  }
});

Deno.test("a domain error comes back as the same kind, slug, detail and lines", async () => {
  const workers = pool(1, 4);
  try {
    await assert.rejects(workers.run({ kind: "refuse" }), (error: unknown) => {
      assert.ok(error instanceof DomainError);
      assert.equal(error.kind, "invalid-input");
      assert.equal(error.slug, "rdf-syntax");
      assert.equal(error.title, "Malformed RDF");
      assert.equal(error.message, "The thing is bad.");
      assert.deepEqual(error.errors, [{ path: "3:7", message: "here" }]);
      assert.deepEqual(error.extensions, { line: 3 });
      return true;
    });
  } finally {
    workers.close();
  }
});

Deno.test("a worker that dies fails only its own tasks and is replaced", async () => {
  const workers = pool(1, 4);
  const logged: unknown[] = [];
  const restoreLog = setLogSink((entry) => logged.push(entry), "error");
  try {
    await assert.rejects(workers.run({ kind: "die" }), /worker stopped/);
    assert.equal(await workers.run({ kind: "echo", value: 1 }), "n1");
    assert.equal(logged.length, 1);
  } finally {
    restoreLog();
    workers.close();
  }
});

Deno.test("closing fails what waits with 503 shutting-down", async () => {
  const workers = pool(1, 4);
  const pending = Array.from(
    { length: 4 },
    (_, i) => workers.run({ kind: "echo", value: i, delayMs: 500 }),
  );
  workers.close();
  for (const task of pending) {
    await assert.rejects(task, (error: unknown) => {
      assert.ok(error instanceof DomainError);
      assert.equal(error.slug, "shutting-down");
      return true;
    });
  }
  await assert.rejects(workers.run({ kind: "echo", value: 1 }), /stopping/);
});

Deno.test("shutdown waits until each worker says it released what it holds, then stops them", async () => {
  const workers = pool(2, 4);
  assert.equal(await workers.run({ kind: "echo", value: 1 }), "n1");
  const started = performance.now();
  const shutdown = workers.shutdown(5000);
  // No task starts once shutdown has begun.
  await assert.rejects(workers.run({ kind: "echo", value: 2 }), (error: unknown) => {
    assert.ok(error instanceof DomainError);
    assert.equal(error.slug, "shutting-down");
    return true;
  });
  await shutdown;
  const waited = performance.now() - started;
  assert.ok(waited >= 45, `shut down after ${waited} ms, before the workers answered`);
  assert.ok(waited < 4000, `shut down after ${waited} ms: the answers were not seen`);
});

Deno.test("shutdown stops a worker that never answers once the time is up", async () => {
  const workers = new WorkerPool<TestTask, string>({
    url: WORKER,
    size: 1,
    maxQueue: 4,
    init: "silent",
    name: "test",
  });
  assert.equal(await workers.run({ kind: "echo", value: 1 }), "silent1");
  const started = performance.now();
  await workers.shutdown(300);
  const waited = performance.now() - started;
  assert.ok(waited >= 290 && waited < 3000, `shut down after ${waited} ms`);
});
