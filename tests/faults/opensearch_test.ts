/**
 * Faults of the search engine under a steady write and search load, on an OpenSearch node
 * of the test's own (never the shared one): the node is SIGKILLed and started again, then
 * frozen with SIGSTOP and let run again.
 *
 * During each fault: writes and reads keep succeeding; `/ready` answers 200 `degraded`
 * within its budget every time; searches answer 503 `search-unavailable`, no later than
 * their configured timeout, and once the engine is marked down at once with Retry-After;
 * memory stays flat. After: the backlog drains, the index equals the store, nothing
 * acknowledged is lost and no ETag is stale.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import {
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";
import { OpenSearchInstance } from "../support/opensearch_instance.ts";
import { DEMO_COLLECTION } from "../support/service.ts";
import { uniqueWord } from "../support/item_versions.ts";
import {
  backlogAtMost,
  eventually,
  loadWarmedUp,
  nothingLost,
  PhaseRecorder,
  ReadyProbe,
  report,
  WriteLoad,
} from "./fault_load.ts";

// The suite runs where OpenSearch can run (the engine suites' variable says so).
const enabled = openSearchUrl() !== undefined;
if (!enabled) reportOpenSearchSkipped();

const READY_BUDGET_MS = 1500;
const SEARCH_TIMEOUT_MS = 2000;
const PROBE_MS = 1000;
/** Slack over a configured time for a machine busy with the rest of the suite. */
const SLACK_MS = 1000;
const FREEZE_MS = 45_000;
/** A backlog the write load keeps in flight when the engine keeps up. */
const CAUGHT_UP = 30;

/** Clients searching without pause, each search recorded per phase. */
class SearchLoad {
  readonly recorder = new PhaseRecorder();
  /** 503s without Retry-After, per phase. */
  readonly retryAfterMissing = new Map<string, number>();
  #stop = false;
  readonly #running: Promise<void>[];

  constructor(baseUrl: string, word: string, clients = 3) {
    this.#running = Array.from({ length: clients }, async () => {
      while (!this.#stop) {
        const started = performance.now();
        let status: string;
        try {
          const response = await fetch(
            `${baseUrl}/api/search?collection=${encodeURIComponent(DEMO_COLLECTION)}&q=${word}`,
            { signal: AbortSignal.timeout(30_000) },
          );
          const body = await response.json() as { type?: string };
          status = response.ok
            ? "200"
            : `${response.status} ${body.type?.replace("/problems/", "")}`;
          if (response.status === 503 && !response.headers.get("retry-after")) {
            const phase = this.recorder.phase;
            this.retryAfterMissing.set(phase, (this.retryAfterMissing.get(phase) ?? 0) + 1);
          }
        } catch {
          status = "no answer";
        }
        this.recorder.record(status, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await Promise.all(this.#running);
  }
}

Deno.test({
  name: "[faults/opensearch] killed and restarted, then frozen: degraded, fail fast, catch up",
  ignore: !enabled,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const node = await OpenSearchInstance.start();
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-faults-os-" });
    try {
      const service = await startServiceProcess({
        SERVICE_DATA_DIR: dataDir,
        SERVICE_SEARCH_BACKEND: "opensearch",
        SERVICE_OPENSEARCH_URL: node.url,
        SERVICE_SEARCH_INDEX_PREFIX: uniqueIndexPrefix("faults"),
        SERVICE_OPENSEARCH_SEARCH_TIMEOUT_MS: String(SEARCH_TIMEOUT_MS),
        SERVICE_OPENSEARCH_BULK_TIMEOUT_MS: "5000",
        SERVICE_OPENSEARCH_ADMIN_TIMEOUT_MS: String(SEARCH_TIMEOUT_MS),
        SERVICE_FAIL_FAST_PROBE_MS: String(PROBE_MS),
        SERVICE_READY_TIMEOUT_MS: String(READY_BUDGET_MS),
      });
      const word = uniqueWord();
      const writes = new WriteLoad(service.url, word, crypto.randomUUID());
      const ready = new ReadyProbe(service.url);
      const searches = new SearchLoad(service.url, word);
      const phase = (name: string) => {
        writes.recorder.phase = ready.phase = searches.recorder.phase = name;
      };
      const figures: Record<string, unknown> = {};
      try {
        await loadWarmedUp(writes);
        await eventually(
          "searchable before the faults",
          () => backlogAtMost(service.url, CAUGHT_UP),
        );

        // Killed: connections refused.
        phase("killed");
        await node.kill();
        await new Promise((resolve) => setTimeout(resolve, 3000));
        phase("killed-marked-down");
        await new Promise((resolve) => setTimeout(resolve, 3000));
        phase("restarting");
        const restartAt = performance.now();
        await node.start();
        figures.restartMs = Math.round(performance.now() - restartAt);
        const upAt = performance.now();
        figures.killedDrainAfterRestartMs = await eventually(
          "the backlog drains after the restart",
          () => backlogAtMost(service.url, CAUGHT_UP),
        );
        figures.killedSearchBackMs = Math.round(performance.now() - upAt);

        // Frozen: connections open, nothing answers.
        phase("frozen");
        const rssBefore = service.rss();
        await node.freeze();
        await new Promise((resolve) => setTimeout(resolve, SEARCH_TIMEOUT_MS * 3));
        phase("frozen-marked-down");
        await new Promise((resolve) => setTimeout(resolve, FREEZE_MS - SEARCH_TIMEOUT_MS * 3));
        figures.rssGrowthDuringFreezeMiB = Math.round((service.rss() - rssBefore) / 2 ** 20);
        phase("thawed");
        await node.thaw();
        const thawAt = performance.now();
        figures.frozenDrainAfterThawMs = await eventually(
          "the backlog drains after the thaw",
          () => backlogAtMost(service.url, CAUGHT_UP),
        );
        figures.thawToDrainedMs = Math.round(performance.now() - thawAt);
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        await writes.stop();
        await ready.stop();
        await searches.stop();
      }
      try {
        await nothingLost(service.url, writes, word, () => service.stderr());
      } finally {
        await service.stop();
      }

      report("opensearch", {
        ...figures,
        maxWriteLatencyMs: writes.recorder.maxLatencyByPhase(),
        maxSearchLatencyMs: searches.recorder.maxLatencyByPhase(),
        maxReadyLatencyMs: ready.recorder.maxLatencyByPhase(),
        acknowledged: writes.acknowledged,
      });
      for (const name of ["killed", "killed-marked-down", "frozen", "frozen-marked-down"]) {
        // Writes keep succeeding: the store is not the engine that failed.
        assert.deepEqual(writes.recorder.others(name, ["201", "204"]), {}, name);
        // /ready: degraded, not unready, within its budget every time.
        const readiness = ready.recorder.get(name);
        // (One answered as the fault began may still say ready.)
        const early = name.endsWith("marked-down") ? [] : ["200 ready"];
        assert.deepEqual(ready.recorder.others(name, ["200 degraded", ...early]), {}, name);
        assert.ok((readiness.statuses["200 degraded"] ?? 0) > 0, name);
        assert.ok(
          readiness.maxLatencyMs <= READY_BUDGET_MS + SLACK_MS,
          `${name}: /ready took ${readiness.maxLatencyMs} ms`,
        );
        // Searches: 503 search-unavailable, never longer than their timeout.
        const search = searches.recorder.get(name);
        // (A search already answered as the fault began is recorded in its first phase.)
        const allowed = name.endsWith("marked-down") ? [] : ["200"];
        assert.deepEqual(
          searches.recorder.others(name, ["503 search-unavailable", ...allowed]),
          {},
          name,
        );
        assert.ok(
          search.maxLatencyMs <= SEARCH_TIMEOUT_MS + SLACK_MS,
          `${name}: a search took ${search.maxLatencyMs} ms`,
        );
      }
      // Once marked down, searches fail at once.
      for (const name of ["killed-marked-down", "frozen-marked-down"]) {
        const search = searches.recorder.get(name);
        assert.ok(search.requests > 10, `${name}: ${search.requests} searches`);
        assert.ok(search.maxLatencyMs < 1000, `${name}: a search took ${search.maxLatencyMs} ms`);
      }
      // Every 503 says when to come back.
      assert.deepEqual([...searches.retryAfterMissing], [], "503s without Retry-After");
      assert.ok((figures.rssGrowthDuringFreezeMiB as number) < 100, JSON.stringify(figures));
    } finally {
      await node.dispose();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
