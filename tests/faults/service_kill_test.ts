/**
 * Fault: the service itself is SIGKILLed under a steady write load and started again on
 * the same data directory (embedded store and search). Writes cut by the kill may or may
 * not have committed; everything acknowledged is there, no ETag is stale, the outbox
 * applies what was pending, the index equals the store, and `/ready` answers within its
 * budget at once after the restart.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { uniqueWord } from "../support/item_versions.ts";
import {
  eventually,
  loadWarmedUp,
  nothingLost,
  ReadyProbe,
  report,
  WriteLoad,
} from "./fault_load.ts";

const READY_BUDGET_MS = 1500;
const SLACK_MS = 1000;

Deno.test({
  name: "[faults/service-kill] killed under load: nothing acknowledged lost, index catches up",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-faults-kill-" });
    const env = { SERVICE_DATA_DIR: dataDir, SERVICE_READY_TIMEOUT_MS: String(READY_BUDGET_MS) };
    try {
      const first = await startServiceProcess(env);
      const word = uniqueWord();
      const writes = new WriteLoad(first.url, word, crypto.randomUUID());
      const figures: Record<string, unknown> = {};
      let second;
      try {
        await loadWarmedUp(writes, 200);
        writes.recorder.phase = "killed";
        await first.kill();
        const killedAt = performance.now();
        second = await startServiceProcess(env);
        figures.restartMs = Math.round(performance.now() - killedAt);
        writes.baseUrl = second.url;
        // Requests still bound for the killed process end first (refused: no answer).
        await new Promise((resolve) => setTimeout(resolve, 300));
        writes.recorder.phase = "restarted";
        const ready = new ReadyProbe(second.url);
        ready.phase = "restarted";
        try {
          await eventually(
            "writes after the restart",
            () => Promise.resolve((writes.recorder.get("restarted").statuses["204"] ?? 0) > 20),
          );
        } finally {
          await ready.stop();
        }
        figures.maxReadyLatencyMs = ready.recorder.get("restarted").maxLatencyMs;
        assert.ok(
          ready.recorder.get("restarted").maxLatencyMs <= READY_BUDGET_MS + SLACK_MS,
          JSON.stringify(figures),
        );
      } finally {
        await writes.stop();
      }
      try {
        figures.drainMs = (await nothingLost(second.url, writes, word, () =>
          second.stderr())).drainMs;
      } finally {
        await second.stop();
      }
      // Cut requests had no answer; every other answer was a success.
      const killed = writes.recorder.get("killed").statuses;
      for (const status of Object.keys(killed)) {
        assert.ok(["201", "204"].includes(status) || status.startsWith("no answer"), status);
      }
      assert.deepEqual(writes.recorder.others("restarted", ["201", "204"]), {});
      report("service-kill", { ...figures, cut: killed, acknowledged: writes.acknowledged });
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
