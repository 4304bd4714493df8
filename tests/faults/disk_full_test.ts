/**
 * Fault: the data directory's file system fills up under a steady write load, then space
 * is freed (embedded store and search). The file system is a small tmpfs the test mounts
 * (root only; skipped, saying so, otherwise).
 *
 * During the fault writes answer 507 `storage-full` (never a bare 500), the log holds
 * SQLite's own message (and no "cannot rollback" over it), `/ready` is 503 naming the
 * storage check, within its budget. Once space is freed writes succeed again at once and
 * `/ready` turns 200; nothing acknowledged is lost, no ETag is stale, the index equals the
 * store, and the database passes `PRAGMA integrity_check`.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startServiceProcess } from "../support/process.ts";
import { uniqueWord } from "../support/item_versions.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import {
  eventually,
  loadWarmedUp,
  nothingLost,
  ReadyProbe,
  report,
  WriteLoad,
} from "./fault_load.ts";

const isRoot = Deno.uid() === 0;
if (!isRoot) console.log("disk-full fault test skipped: mounting a small tmpfs needs root");

const READY_BUDGET_MS = 1500;
/** Slack over the budget for a machine busy with the rest of the suite. */
const READY_SLACK_MS = 1000;

async function run(command: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command(command, { args, stderr: "piped" }).output();
  assert.ok(
    output.success,
    `${command} ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`,
  );
}

/** Fills the file system holding `path` with one file, until it is full. */
async function fill(path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true });
  const chunk = new Uint8Array(256 * 1024);
  try {
    while (true) await file.write(chunk);
  } catch (error) {
    assert.match(String(error), /No space left|ENOSPC|os error 28/);
  } finally {
    file.close();
  }
}

Deno.test({
  name: "[faults/disk-full] writes answer 507 storage-full, work again once space is freed",
  ignore: !isRoot,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const mount = await Deno.makeTempDir({ prefix: "rcs-faults-disk-" });
    await run("mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", mount);
    const dataDir = join(mount, "data");
    const ballast = join(mount, "ballast");
    try {
      const service = await startServiceProcess({
        SERVICE_DATA_DIR: dataDir,
        SERVICE_READY_TIMEOUT_MS: String(READY_BUDGET_MS),
      });
      const word = uniqueWord();
      const load = new WriteLoad(service.url, word, crypto.randomUUID());
      const ready = new ReadyProbe(service.url);
      const figures: Record<string, unknown> = {};
      try {
        await loadWarmedUp(load);

        load.recorder.phase = ready.phase = "during";
        await fill(ballast);
        const fullAt = performance.now();
        await eventually(
          "a 507 during the fault",
          () =>
            Promise.resolve((load.recorder.get("during").statuses["507 storage-full"] ?? 0) >= 20),
        );
        await eventually("/ready says the store cannot write", async () => {
          const response = await fetch(`${service.url}/ready`);
          const body = await response.json() as { checks: { storage?: { ok: boolean } } };
          return response.status === 503 && body.checks.storage?.ok === false;
        });
        await new Promise((resolve) => setTimeout(resolve, 2000));
        figures.faultMs = Math.round(performance.now() - fullAt);

        load.recorder.phase = ready.phase = "after";
        await Deno.remove(ballast);
        const freedAt = performance.now();
        figures.firstWriteAfterFreeMs = await eventually(
          "a write after space was freed",
          () =>
            Promise.resolve(
              (load.recorder.get("after").statuses["201"] ?? 0) +
                  (load.recorder.get("after").statuses["204"] ?? 0) > 0,
            ),
        );
        figures.readyAfterFreeMs = await eventually(
          "/ready 200 after space was freed",
          async () => {
            const response = await fetch(`${service.url}/ready`);
            await response.body?.cancel();
            return response.status === 200;
          },
        );
        figures.freedToReadyMs = Math.round(performance.now() - freedAt);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      } finally {
        await load.stop();
        await ready.stop();
      }
      try {
        figures.drainMs = (await nothingLost(service.url, load, word, () =>
          service.stderr())).drainMs;
      } finally {
        await service.stop();
      }

      // What clients got: successes, or 507 storage-full while the disk was full.
      const during = load.recorder.get("during");
      assert.deepEqual(load.recorder.others("during", ["201", "204", "507 storage-full"]), {});
      assert.deepEqual(load.recorder.others("after", ["201", "204", "507 storage-full"]), {});
      assert.ok((load.recorder.get("after").statuses["204"] ?? 0) > 0, "writes work again");
      // /ready answered within its budget throughout, 503 while full.
      for (const phase of ["before", "during", "after"]) {
        const stats = ready.recorder.get(phase);
        assert.ok(
          stats.maxLatencyMs <= READY_BUDGET_MS + READY_SLACK_MS,
          `${phase}: ${stats.maxLatencyMs} ms`,
        );
      }
      assert.ok((ready.recorder.get("during").statuses["503 unavailable"] ?? 0) > 0);
      // The log: SQLite's own words, once per outage, and never the rollback error over them.
      const log = service.stderr();
      assert.match(log, /"storage: writes fail".*"fault":"full".*database or disk is full/);
      assert.doesNotMatch(log, /cannot rollback/);
      assert.doesNotMatch(log, /unhandled error/);

      const db = new DatabaseSync(join(dataDir, LOCAL_DB_FILE), { readOnly: true });
      try {
        assert.deepEqual(
          db.prepare("PRAGMA integrity_check").all().map((row) => ({ ...row })),
          [{ integrity_check: "ok" }],
        );
      } finally {
        db.close();
      }
      report("disk-full", {
        ...figures,
        writesDuring: during.statuses,
        maxWriteLatencyDuringMs: during.maxLatencyMs,
        maxReadyLatencyMs: Math.max(
          ...["before", "during", "after"].map((p) => ready.recorder.get(p).maxLatencyMs),
        ),
        acknowledged: load.acknowledged,
      });
    } finally {
      await run("umount", "-l", mount).catch(() => {});
      await Deno.remove(mount, { recursive: true }).catch(() => {});
    }
  },
});
