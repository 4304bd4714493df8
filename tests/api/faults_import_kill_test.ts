/**
 * Fault suite, SIGKILL during a bulk import, on both search engines.
 *
 * The service runs as its own process. An import whose body is still arriving is killed
 * (SIGKILL) once the job has reported items written. After a restart on the same data: the
 * job reads `failed` (interrupted), never `succeeded`; every item the job reported as written
 * before the kill is stored, and every stored item is indexed (its outbox entry was written
 * with it); a new import of the collection can start.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { getJson, outboxDrained, searchFinds } from "../support/process_probes.ts";
import { DEMO_COLLECTION } from "../support/service.ts";
import { deleteIndicesWithPrefix, searchBackends } from "../support/opensearch.ts";
import { uniqueWord } from "../support/item_versions.ts";
import { INTERRUPTED_MESSAGE } from "../../src/jobs/job_store.ts";

const COLLECTION = encodeURIComponent(DEMO_COLLECTION);
/** Items sent before the kill can come; the body is never finished. */
const ITEMS = 3000;

function itemQuads(run: string, n: number, word: string): string {
  const uri = `<https://data.example.org/id/import-kill/${run}/${n}>`;
  return `${uri} <http://purl.org/dc/terms/title> "${word} ${n}" ${uri} .\n` +
    `${uri} <http://purl.org/dc/terms/description> "item ${n} of an import" ${uri} .\n`;
}

/** The items of the run in the store, by an export of the collection. */
async function storedItems(baseUrl: string, run: string): Promise<Set<string>> {
  const text = await (await fetch(`${baseUrl}/api/admin/export?collection=${COLLECTION}`)).text();
  const found = new Set<string>();
  for (
    const match of text.matchAll(/<(https:\/\/data\.example\.org\/id\/import-kill\/[^>]+)> \.$/gm)
  ) {
    if (match[1].includes(run)) found.add(match[1]);
  }
  return found;
}

for (const engine of searchBackends("faults-import-kill")) {
  Deno.test({
    name: `[faults/import-kill/${engine.name}] SIGKILL during an import: the job is failed ` +
      "after a restart, every item reported written is stored and indexed",
    ignore: engine.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const env: Record<string, string> = {
        ...engine.env(),
        SERVICE_DATA_DIR: await Deno.makeTempDir({ prefix: "rcs-import-kill-" }),
      };
      const run = crypto.randomUUID();
      const word = uniqueWord();
      try {
        const first = await startServiceProcess(env);
        let jobId: string;
        let writtenAtKill = 0;
        let upload: Promise<unknown> = Promise.resolve();
        try {
          let feed!: ReadableStreamDefaultController<Uint8Array>;
          const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
          const encoder = new TextEncoder();
          const answer = fetch(`${first.url}/api/admin/import?collection=${COLLECTION}`, {
            method: "POST",
            headers: { "Content-Type": "application/n-quads" },
            body,
          }).then((response) => response.body?.cancel(), () => {});
          // A few items go in at once; the rest follow slowly while the job runs.
          const FIRST = 100;
          for (let n = 0; n < FIRST; n++) feed.enqueue(encoder.encode(itemQuads(run, n, word)));
          upload = (async () => {
            for (let n = FIRST; n < ITEMS; n++) {
              feed.enqueue(encoder.encode(itemQuads(run, n, word)));
              if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 50));
            }
            await answer;
          })().catch(() => {});
          // The body is still uploading: the job is found in the list of imports.
          let found: string | undefined;
          while (!found) {
            const { body: jobs } = await getJson(`${first.url}/api/admin/import/jobs`);
            found = (jobs as unknown as { id: string; state: string }[])
              .find((job) => job.state === "running")?.id;
          }
          jobId = found;
          while (true) {
            const { body: job } = await getJson(`${first.url}/api/admin/import/jobs/${jobId}`);
            assert.equal(job.state, "running", JSON.stringify(job.errors));
            if ((job.written as number) >= 200) {
              writtenAtKill = job.written as number;
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        } finally {
          await first.kill();
          await upload;
        }
        console.log(`killed with ${writtenAtKill} items reported written`);

        const second = await startServiceProcess(env);
        try {
          const { status, body: job } = await getJson(
            `${second.url}/api/admin/import/jobs/${jobId}`,
          );
          assert.equal(status, 200);
          assert.equal(job.state, "failed");
          assert.ok(job.finishedAt, "an interrupted job has ended");
          assert.deepEqual((job.errors as unknown[]).at(-1), {
            item: null,
            message: INTERRUPTED_MESSAGE,
          });
          const stored = await storedItems(second.url, run);
          assert.ok(
            stored.size >= writtenAtKill,
            `${stored.size} stored, ${writtenAtKill} reported written`,
          );
          assert.ok(stored.size < ITEMS, "the kill came before the end");
          assert.ok(
            (job.written as number) <= stored.size,
            "the record claims no more than stored",
          );
          await outboxDrained(second.url);
          await searchFinds(second.url, COLLECTION, word, stored.size);

          // The lock went with the job: the import can be run again, and completes it.
          const again = await fetch(
            `${second.url}/api/admin/import?collection=${COLLECTION}&mode=upsert&wait=true`,
            {
              method: "POST",
              headers: { "Content-Type": "application/n-quads" },
              body: Array.from({ length: ITEMS }, (_, n) => itemQuads(run, n, word)).join(""),
            },
          );
          const finished = await again.json();
          assert.equal(again.status, 200);
          assert.equal(finished.state, "succeeded", JSON.stringify(finished.errors));
          assert.equal(finished.written, ITEMS);
          assert.equal((await storedItems(second.url, run)).size, ITEMS);
        } finally {
          await second.stop();
        }
      } finally {
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
        await Deno.remove(env.SERVICE_DATA_DIR, { recursive: true });
      }
    },
  });
}
