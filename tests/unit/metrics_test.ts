/**
 * The backend decorator of ServiceMetrics: calls are timed on the target itself (private
 * fields work), backend failures are counted by problem slug, answers such as "not found"
 * are not, and streams pass through.
 */
import { strict as assert } from "node:assert";
import { ServiceMetrics } from "../../src/metrics/metrics.ts";
import { DomainError } from "../../src/errors/domain_error.ts";

class FakeStore {
  #reads = 0;
  read(): Promise<number> {
    return Promise.resolve(++this.#reads);
  }
  missing(): Promise<never> {
    return Promise.reject(new DomainError("item-not-found", { detail: "none" }));
  }
  down(): Promise<never> {
    return Promise.reject(new DomainError("store-unavailable", { detail: "x" }));
  }
  async *list(): AsyncIterable<number> {
    yield this.#reads;
  }
}

async function valuesOf(metrics: ServiceMetrics, name: string) {
  return (await metrics.registry.getSingleMetric(name)!.get()).values;
}

Deno.test("timed backends: latency per operation, backend failures by problem slug", async () => {
  const metrics = new ServiceMetrics();
  const store = metrics.timed("store", new FakeStore());
  assert.equal(await store.read(), 1);
  assert.equal(await store.read(), 2);
  await assert.rejects(store.missing(), DomainError);
  await assert.rejects(store.down(), DomainError);
  for await (const reads of store.list()) assert.equal(reads, 2);

  const counts = (await valuesOf(metrics, "rcs_backend_call_duration_seconds"))
    .filter((value) =>
      (value as { metricName?: string }).metricName === "rcs_backend_call_duration_seconds_count"
    )
    .map((value) => [value.labels.operation, value.value]);
  assert.deepEqual(counts.sort(), [["down", 1], ["missing", 1], ["read", 2]]);
  const errors = (await valuesOf(metrics, "rcs_backend_errors_total"))
    .map((value) => [value.labels.operation, value.labels.problem, value.value]);
  assert.deepEqual(errors, [["down", "store-unavailable", 1]]);
});
