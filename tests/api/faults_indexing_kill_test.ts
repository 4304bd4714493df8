/**
 * Fault suite, SIGKILL during an indexing job, on both search engines.
 *
 * The service runs as its own process. A `clear=true` rebuild of a collection of some
 * thousands of items is killed (SIGKILL) once it has written part of the new index. After a
 * restart on the same data: the job reads `failed` (interrupted), nothing is running,
 * searches still answer from the old, complete index, and a new rebuild runs to success and
 * leaves exactly one index behind (the killed rebuild's partial index is gone).
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startServiceProcess } from "../support/process.ts";
import {
  getJson,
  outboxDrained,
  searchFinds as searchFindsIn,
  searchTotal as searchTotalIn,
} from "../support/process_probes.ts";
import { DEMO_COLLECTION } from "../support/service.ts";
import { deleteIndicesWithPrefix, searchBackends } from "../support/opensearch.ts";
import { uniqueWord, versionBody } from "../support/item_versions.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { INTERRUPTED_MESSAGE } from "../../src/jobs/job_store.ts";

const ITEMS = 3000;
const TRIPLES = 20;
const WRITERS = 8;
const COLLECTION = encodeURIComponent(DEMO_COLLECTION);
const searchTotal = (baseUrl: string, word: string) => searchTotalIn(baseUrl, COLLECTION, word);
const searchFinds = (baseUrl: string, word: string, expected: number) =>
  searchFindsIn(baseUrl, COLLECTION, word, expected);

async function createItems(baseUrl: string, run: string, word: string): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (next < ITEMS) {
      const uri = `https://data.example.org/id/fault/${run}/indexed-${next++}`;
      const response = await fetch(`${baseUrl}/api/item?collection=${COLLECTION}`, {
        method: "PUT",
        headers: { "Content-Type": "application/n-triples" },
        body: versionBody(uri, 0, word, TRIPLES),
      });
      assert.equal(response.status, 201, await response.text());
    }
  }));
}

for (const engine of searchBackends("faults-kill")) {
  Deno.test({
    name: `[faults/indexing-kill/${engine.name}] SIGKILL during a clear=true rebuild: the job ` +
      "is failed after a restart, the old index serves, a new job succeeds",
    ignore: engine.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const env: Record<string, string> = {
        ...engine.env(),
        SERVICE_DATA_DIR: await Deno.makeTempDir({ prefix: "rcs-faults-kill-" }),
      };
      const run = crypto.randomUUID();
      const word = uniqueWord();
      try {
        const first = await startServiceProcess(env);
        let jobId: string;
        let processedAtKill: number;
        try {
          await createItems(first.url, run, word);
          await outboxDrained(first.url);
          await searchFinds(first.url, word, ITEMS);
          const started = await fetch(
            `${first.url}/api/admin/index/collection?collection=${COLLECTION}&clear=true`,
            { method: "POST" },
          );
          assert.equal(started.status, 202);
          jobId = (await started.json()).id;
          // Kill once part of the new index is written, before the swap.
          while (true) {
            const { body: job } = await getJson(`${first.url}/api/admin/index/jobs/${jobId}`);
            assert.notEqual(
              job.state,
              "succeeded",
              "the job ended before a poll saw it under way: too few items, " +
                "or the job holds the event loop",
            );
            assert.notEqual(job.state, "failed", JSON.stringify(job.errors));
            if ((job.processed as number) > 0) {
              processedAtKill = job.processed as number;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        } finally {
          await first.kill();
        }
        console.log(`killed with ${processedAtKill} of ${ITEMS} items in the new index`);

        const second = await startServiceProcess(env);
        try {
          const { status, body: job } = await getJson(
            `${second.url}/api/admin/index/jobs/${jobId}`,
          );
          assert.equal(status, 200);
          assert.equal(job.state, "failed");
          assert.equal(job.clear, true);
          assert.ok(job.finishedAt, "an interrupted job has ended");
          assert.ok((job.processed as number) >= processedAtKill);
          assert.ok((job.processed as number) < ITEMS, "the kill came before the end");
          assert.deepEqual((job.errors as unknown[]).at(-1), {
            item: null,
            message: INTERRUPTED_MESSAGE,
          });
          assert.equal((await getJson(`${second.url}/api/admin/index/is-running`)).body, false);
          const { body: recent } = await getJson(`${second.url}/api/admin/index/jobs`);
          const listed = (recent as unknown as { id: string; state: string }[])
            .find((entry) => entry.id === jobId);
          assert.equal(listed?.state, "failed");

          // The old index still serves all the items, not the partial rebuild.
          assert.equal(await searchTotal(second.url, word), ITEMS);

          const retried = await fetch(
            `${second.url}/api/admin/index/collection?collection=${COLLECTION}&clear=true&wait=true`,
            { method: "POST" },
          );
          const retriedJob = await retried.json();
          assert.equal(retried.status, 200);
          assert.equal(retriedJob.state, "succeeded", JSON.stringify(retriedJob.errors));
          assert.equal(retriedJob.processed, ITEMS);
          assert.equal(retriedJob.indexed, ITEMS);
          assert.equal(await searchTotal(second.url, word), ITEMS);
          assert.equal((await getJson(`${second.url}/api/admin/index/is-running`)).body, false);
        } finally {
          await second.stop();
        }
        await assertOneIndexLeft(env);
      } finally {
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
        await Deno.remove(env.SERVICE_DATA_DIR, { recursive: true });
      }
    },
  });
}

/** The killed rebuild left nothing behind: one physical index holding the items. */
async function assertOneIndexLeft(env: Record<string, string>): Promise<void> {
  const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
  if (prefix) {
    const response = await fetch(
      `${env.SERVICE_OPENSEARCH_URL}/_cat/indices/${prefix}*?format=json&h=index,docs.count`,
    );
    const indices = await response.json() as { index: string; "docs.count": string }[];
    assert.equal(indices.length, 1, JSON.stringify(indices));
    assert.equal(Number(indices[0]["docs.count"]), ITEMS);
    return;
  }
  const db = new DatabaseSync(join(env.SERVICE_DATA_DIR, LOCAL_DB_FILE), { readOnly: true });
  try {
    const physical = db.prepare("SELECT state, tables FROM search_physical_indices").all();
    assert.deepEqual(physical.map((row) => row.state), ["serving"]);
    // Each physical index has tables of its own; the interrupted rebuild's are gone.
    const docTables = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'search_docs_*'",
    ).all().map((row) => row.name);
    assert.deepEqual(docTables, [`search_docs_${physical[0].tables}`]);
    const documents = db.prepare(`SELECT count(*) AS n FROM "${docTables[0]}"`).get();
    assert.equal(documents?.n, ITEMS);
  } finally {
    db.close();
  }
}
