/**
 * Fault suite, a busy indexer on the embedded backends: the service keeps answering.
 *
 * On the embedded store and search engine an indexing batch never waits for I/O, so an
 * indexer that never yields holds the event loop: every request waits until a whole job
 * ends or a whole outbox backlog is drained (seconds for a few thousand items). Here
 * requests sent meanwhile must be answered while the work is still under way, which the
 * progress they report shows.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, startTestService, type TestService } from "../support/service.ts";
import { uniqueWord, versionBody } from "../support/item_versions.ts";

const ITEMS = 2000;
const COLLECTION = encodeURIComponent(DEMO_COLLECTION);

async function createItems(service: TestService, word: string): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < ITEMS) {
      const uri = `https://data.example.org/id/fault/busy/${word}/${next++}`;
      const response = await service.fetch(`/api/item?collection=${COLLECTION}`, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: versionBody(uri, 0, word, 20),
      });
      assert.equal(response.status, 201, await response.text());
    }
  }));
}

function test(name: string, fn: (service: TestService) => Promise<void>): void {
  Deno.test({
    name: `[faults/busy-indexing/embedded] ${name}`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService();
      try {
        await fn(service);
      } finally {
        await service.close();
      }
    },
  });
}

test("requests are answered while an indexing job runs", async (service) => {
  await createItems(service, uniqueWord());
  await service.services.deps.indexOutbox.drain();
  const started = await service.fetch(
    `/api/admin/index/collection?collection=${COLLECTION}&clear=true`,
    { method: "POST" },
  );
  assert.equal(started.status, 202);
  const { id } = await started.json();
  const seen: number[] = [];
  while (true) {
    const job = await (await service.fetch(`/api/admin/index/jobs/${id}`)).json();
    if (job.state !== "running" && job.state !== "queued") {
      assert.equal(job.state, "succeeded", JSON.stringify(job.errors));
      break;
    }
    seen.push(job.processed);
  }
  assert.ok(
    seen.some((processed) => processed > 0 && processed < ITEMS),
    `answers came only before or after the job's work: processed ${seen}`,
  );
});

test("requests are answered while the outbox drains a backlog", async (service) => {
  const outbox = service.services.deps.indexOutbox;
  await outbox.stop();
  await createItems(service, uniqueWord());
  assert.equal(await outbox.backlog(), ITEMS);
  outbox.start();
  const seen: number[] = [];
  while (true) {
    const ready = await (await service.fetch("/ready")).json();
    const backlog = ready.checks.outbox.detail as number;
    if (backlog === 0) break;
    seen.push(backlog);
  }
  assert.ok(
    seen.some((backlog) => backlog > 0 && backlog < ITEMS),
    `answers came only before or after the drain: backlog ${seen}`,
  );
});
