/**
 * An import of any size: the service (its own process) cuts a request body only when it stops
 * arriving (`service.http.bodyStallMs`, short here), never because the whole body takes long.
 * A slow import that keeps sending for several times the stall timeout succeeds; one whose
 * client stops sending is ended and its job fails; sent again with `mode=create`, the import
 * skips the items the cut one stored and writes the rest.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { getJson } from "../support/process_probes.ts";
import { DEMO_COLLECTION } from "../support/service.ts";

const COLLECTION = encodeURIComponent(DEMO_COLLECTION);
const STALL_MS = 1500;
const ITEMS = 60;

function itemQuads(run: string, n: number): string {
  const uri = `<https://data.example.org/id/import-stall/${run}/${n}>`;
  return `${uri} <http://purl.org/dc/terms/title> "stall test ${n}" ${uri} .\n`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends items `0 .. sent-1` slowly; with `stall`, stops sending then without ending. */
function slowBody(run: string, sent: number, pauseMs: number, stall: boolean) {
  const encoder = new TextEncoder();
  let n = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (n === sent) {
        if (stall) await new Promise(() => {}); // never sends again, never ends
        controller.close();
        return;
      }
      await sleep(pauseMs);
      controller.enqueue(encoder.encode(itemQuads(run, n++)));
    },
  });
}

Deno.test({
  name: "[import] a slow body that keeps arriving is never cut; a stalled one is ended and " +
    "the import resumes with mode=create",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-import-stall-" });
    const service = await startServiceProcess({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_BODY_STALL_MS: String(STALL_MS),
    });
    try {
      const run = crypto.randomUUID();
      const importUrl = `${service.url}/api/admin/import?collection=${COLLECTION}`;
      const started = performance.now();
      // 60 items, one every 100 ms: the body takes about four stall timeouts to arrive.
      const slow = await fetch(`${importUrl}&wait=true`, {
        method: "POST",
        headers: { "Content-Type": "application/n-quads" },
        body: slowBody(run, ITEMS, 100, false),
      });
      const slowJob = await slow.json();
      assert.equal(slow.status, 200, JSON.stringify(slowJob));
      assert.ok(performance.now() - started > 3 * STALL_MS, "the body took longer than a stall");
      assert.equal(slowJob.state, "succeeded", JSON.stringify(slowJob.errors));
      assert.equal(slowJob.written, ITEMS);

      // Another run: 20 items arrive, then the client goes silent without ending the body.
      const cut = crypto.randomUUID();
      const silent = fetch(importUrl, {
        method: "POST",
        headers: { "Content-Type": "application/n-quads" },
        body: slowBody(cut, 20, 10, true),
      }).then(async (response) => ({ status: response.status, text: await response.text() }))
        .catch((error: Error) => ({ status: 0, text: error.message }));
      const ended = await Promise.race([silent, sleep(STALL_MS * 8).then(() => undefined)]);
      assert.ok(ended !== undefined, "the stalled request was ended by the service");
      assert.notEqual(ended.status, 200, `a stalled import did not succeed: ${ended.text}`);
      let job: Record<string, unknown> | undefined;
      for (let tries = 0; tries < 100 && job?.state !== "failed"; tries++) {
        const { body: jobs } = await getJson(`${service.url}/api/admin/import/jobs?limit=5`);
        job = (jobs as unknown as Record<string, unknown>[])[0];
        if (job?.state !== "failed") await sleep(50);
      }
      assert.equal(job?.state, "failed", JSON.stringify(job));
      const stored = job!.written as number;
      assert.ok(stored <= 20, `${stored} written before the stall`);

      // Resumed: the whole body again, mode=create leaves what the cut import stored.
      const resumed = await fetch(`${importUrl}&mode=create&wait=true`, {
        method: "POST",
        headers: { "Content-Type": "application/n-quads" },
        body: Array.from({ length: 40 }, (_, n) => itemQuads(cut, n)).join(""),
      });
      const resumedJob = await resumed.json();
      assert.equal(resumedJob.state, "succeeded", JSON.stringify(resumedJob));
      assert.equal(resumedJob.existing, stored);
      assert.equal(resumedJob.written, 40 - stored);
      assert.equal(resumedJob.refused, 0);
    } finally {
      await service.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
