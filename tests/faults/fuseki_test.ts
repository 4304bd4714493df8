/**
 * Faults of the SPARQL store under a steady write load, on a Fuseki (TDB2) of the test's
 * own (never the shared one): frozen with SIGSTOP and let run again, then SIGKILLed and
 * started again.
 *
 * During each fault: a write whose update was sent answers 503 `write-outcome-unknown`
 * (with Retry-After), never a plain 503; the others 503 `store-unavailable`, at once once
 * the store is marked down; no write waits much longer than the store timeout; `/ready`
 * answers 503 within its budget every time. After: writes succeed again; every
 * acknowledged write is there, no ETag is stale, and the index equals the store.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { FusekiInstance, SPARQL_SUITE_SKIPPED, sparqlEndpointsFromEnv } from "../support/fuseki.ts";
import { freePort } from "../support/ports.ts";
import { uniqueWord } from "../support/item_versions.ts";
import {
  eventually,
  loadWarmedUp,
  nothingLost,
  ReadyProbe,
  report,
  WriteLoad,
} from "./fault_load.ts";

// The suite runs where Fuseki can run (the engine suites' variables say so).
const enabled = sparqlEndpointsFromEnv() !== undefined;
if (!enabled) console.log(SPARQL_SUITE_SKIPPED);

const READY_BUDGET_MS = 1500;
const STORE_TIMEOUT_MS = 5000;
const PROBE_MS = 1000;
const SLACK_MS = 1000;
const FREEZE_MS = 45_000;
/** service.store.groupCommit.maxWaitMs, the default. */
const GROUP_COMMIT_WAIT_MS = 1000;

Deno.test({
  name: "[faults/fuseki] frozen, then killed and restarted: unknown outcomes said so, fail fast",
  ignore: !enabled,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-faults-fuseki-" });
    const fuseki = new FusekiInstance({
      port: freePort(),
      runDir: `${dir}/run`,
      tdb2Dir: `${dir}/tdb2`,
    });
    const dataDir = `${dir}/data`;
    try {
      await fuseki.start();
      const pid = async () => Number((await Deno.readTextFile(`${dir}/run/fuseki.pid`)).trim());
      const { queryUrl, updateUrl, graphStoreUrl } = fuseki.endpoints;
      const service = await startServiceProcess({
        SERVICE_DATA_DIR: dataDir,
        SERVICE_STORE_BACKEND: "sparql",
        SERVICE_SPARQL_QUERY_URL: queryUrl,
        SERVICE_SPARQL_UPDATE_URL: updateUrl,
        SERVICE_SPARQL_GSP_URL: graphStoreUrl,
        SERVICE_SPARQL_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
        SERVICE_FAIL_FAST_PROBE_MS: String(PROBE_MS),
        SERVICE_READY_TIMEOUT_MS: String(READY_BUDGET_MS),
      });
      const word = uniqueWord();
      const writes = new WriteLoad(service.url, word, crypto.randomUUID());
      const ready = new ReadyProbe(service.url);
      const phase = (name: string) => writes.recorder.phase = ready.phase = name;
      const figures: Record<string, unknown> = {};
      const storeBack = async () => {
        const response = await fetch(`${service.url}/ready`);
        await response.body?.cancel();
        return response.status === 200;
      };
      try {
        await loadWarmedUp(writes);

        phase("frozen");
        const rssBefore = service.rss();
        Deno.kill(await pid(), "SIGSTOP");
        // The writes in flight time out together: the store is marked down after one timeout.
        await new Promise((resolve) => setTimeout(resolve, STORE_TIMEOUT_MS * 2));
        phase("frozen-marked-down");
        await new Promise((resolve) => setTimeout(resolve, FREEZE_MS - STORE_TIMEOUT_MS * 2));
        figures.rssGrowthDuringFreezeMiB = Math.round((service.rss() - rssBefore) / 2 ** 20);
        phase("thawed");
        Deno.kill(await pid(), "SIGCONT");
        figures.thawToReadyMs = await eventually("/ready 200 after the thaw", storeBack);
        await new Promise((resolve) => setTimeout(resolve, 1000));

        phase("killed");
        await fuseki.kill();
        await new Promise((resolve) => setTimeout(resolve, 4000));
        phase("restarted");
        const restartAt = performance.now();
        await fuseki.start();
        figures.fusekiRestartMs = Math.round(performance.now() - restartAt);
        figures.restartToReadyMs = await eventually("/ready 200 after the restart", storeBack);
        figures.restartToWritesMs = await eventually(
          "writes after the restart",
          () => Promise.resolve((writes.recorder.get("restarted").statuses["204"] ?? 0) > 0),
        );
      } finally {
        await writes.stop();
        await ready.stop();
      }
      try {
        await nothingLost(service.url, writes, word, () => service.stderr());
      } finally {
        await service.stop();
      }

      report("fuseki", {
        ...figures,
        writes: writes.recorder.statusesByPhase(),
        maxWriteLatencyMs: writes.recorder.maxLatencyByPhase(),
        maxReadyLatencyMs: ready.recorder.maxLatencyByPhase(),
        acknowledged: writes.acknowledged,
      });
      const failures = ["503 write-outcome-unknown", "503 store-unavailable"];
      for (const name of ["frozen", "frozen-marked-down", "killed"]) {
        assert.deepEqual(writes.recorder.others(name, ["201", "204", ...failures]), {}, name);
        const readiness = ready.recorder.get(name);
        assert.ok(
          readiness.maxLatencyMs <= READY_BUDGET_MS + SLACK_MS,
          `${name}: /ready took ${readiness.maxLatencyMs} ms`,
        );
        assert.ok((readiness.statuses["503 unavailable"] ?? 0) > 0, name);
      }
      // The writes in flight when Fuseki froze were sent: their outcome is unknown.
      assert.ok((writes.recorder.get("frozen").statuses["503 write-outcome-unknown"] ?? 0) > 0);
      // No write waited longer than the store's timeout (after at most the group commit's
      // wait for the commit ahead of it); once the store was marked down, none waited.
      assert.ok(
        writes.recorder.get("frozen").maxLatencyMs <=
          STORE_TIMEOUT_MS + GROUP_COMMIT_WAIT_MS + SLACK_MS,
        `a write took ${writes.recorder.get("frozen").maxLatencyMs} ms`,
      );
      assert.ok(writes.recorder.get("frozen-marked-down").maxLatencyMs < 1000);
      assert.deepEqual(
        writes.recorder.others("frozen-marked-down", ["503 store-unavailable"]),
        {},
      );
      assert.ok((writes.recorder.get("restarted").statuses["204"] ?? 0) > 0, "writes again");
      assert.ok((figures.rssGrowthDuringFreezeMiB as number) < 100, JSON.stringify(figures));
    } finally {
      // A frozen Fuseki would not stop.
      const left = await Deno.readTextFile(`${dir}/run/fuseki.pid`).catch(() => "");
      if (left.trim()) {
        try {
          Deno.kill(Number(left.trim()), "SIGCONT");
        } catch {
          // Gone already.
        }
      }
      await fuseki.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
