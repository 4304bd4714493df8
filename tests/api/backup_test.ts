/**
 * Online backup (`src/main.ts --backup DEST`) while the service keeps writing, then a
 * restore: a second service on a data directory holding only the backup serves every item
 * acknowledged before the backup started, with the same ETag, and the copy brings the
 * embedded search index, the indexing job history and the outbox along.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../support/service.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { SCHEMA_VERSION } from "../../src/local_database.ts";

const WRITERS = 4;
const ITEMS_BEFORE_BACKUP = 150;

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Runs the backup as its own process next to the live service, the way an operator does:
 * `deno task backup DEST` from the project directory, with exactly the task's permissions.
 */
function runBackup(dataDir: string, destination: string) {
  return runCommand(["task", "backup", destination], dataDir);
}

/** The permission flags of `deno compile` in `text` (scripts/compile.ts, the Dockerfile). */
function compiledPermissions(text: string): string[] {
  const flags = [...text.matchAll(/--allow-[a-z]+/g)].map((match) => match[0]);
  assert.ok(flags.length > 0, "no permission flags found");
  return [...new Set(flags)];
}

async function runCommand(args: string[], dataDir: string) {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { SERVICE_DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function itemBody(uri: string, token: string): string {
  return JSON.stringify({
    "@id": uri,
    "@type": "http://xmlns.com/foaf/0.1/Document",
    "http://purl.org/dc/terms/title": `Backup ${token} ${uri.split("/").pop()}`,
    "http://purl.org/dc/terms/description": "written while a backup may be running",
  });
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url}: ${response.status}`);
  return await response.json();
}

async function waitForAcknowledged(count: () => number, target: number): Promise<void> {
  while (count() < target) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function waitForEmptyOutbox(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (true) {
    const response = await fetch(`${url}/ready`);
    const body = await response.json() as { checks: { outbox: { detail: number } } };
    if (body.checks.outbox.detail === 0) return;
    assert.ok(Date.now() < deadline, `outbox never drained: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test({
  name: "backup during writes restores every acknowledged item, its ETag and the search index",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-backup-live-" });
    const backupDir = await Deno.makeTempDir({ prefix: "rcs-backup-dest-" });
    const restoredDir = await Deno.makeTempDir({ prefix: "rcs-backup-restored-" });
    const destination = join(backupDir, "backup.db");
    const token = `tok${crypto.randomUUID().replaceAll("-", "")}`;
    try {
      const live = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
      /** uri → ETag, in the order the writes were acknowledged. */
      const acknowledged = new Map<string, string>();
      let stop = false;
      /**
       * Pause between writes once the backup starts. Slower writes keep SQLite from
       * checkpointing the WAL while the backup process starts up, so the newest items
       * acknowledged before it are still only in the WAL: a backup that copied the main
       * file alone would lose them, and this test would say so.
       */
      let pauseMs = 0;
      const writer = async (id: number) => {
        for (let n = 0; !stop; n++) {
          const uri = `https://data.example.org/id/backup/${token}/${id}-${n}`;
          const response = await fetch(
            `${live.url}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
            {
              method: "PUT",
              headers: { "Content-Type": "application/ld+json" },
              body: itemBody(uri, token),
            },
          );
          await response.body?.cancel();
          if (response.status === 201) acknowledged.set(uri, response.headers.get("etag")!);
          else writeErrors.push(`${uri}: ${response.status}`);
          if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
      };
      const writeErrors: string[] = [];
      let writers: Promise<void>[] = [];
      let backup: Awaited<ReturnType<typeof runBackup>>;
      let jobId: string;
      let beforeBackup: Map<string, string>;
      let duringBackup: number;
      try {
        writers = Array.from({ length: WRITERS }, (_, id) => writer(id));
        await waitForAcknowledged(() => acknowledged.size, 50);
        // An indexing job, so that the job history has a row to carry over.
        const job = await fetch(
          `${live.url}/api/admin/index/collection?collection=${
            encodeURIComponent(DEMO_COLLECTION)
          }&wait=true`,
          { method: "POST" },
        );
        assert.equal(job.status, 200);
        jobId = (await job.json() as { id: string }).id;
        await waitForAcknowledged(() => acknowledged.size, ITEMS_BEFORE_BACKUP);

        beforeBackup = new Map(acknowledged);
        pauseMs = 1000;
        backup = await runBackup(dataDir, destination);
        duringBackup = acknowledged.size - beforeBackup.size;
      } finally {
        stop = true;
        await Promise.allSettled(writers);
        await live.stop();
      }
      assert.deepEqual(writeErrors, []);
      assert.equal(backup.code, 0, backup.stderr);
      const report = JSON.parse(backup.stdout) as Record<string, unknown>;
      assert.equal(report.integrity, "ok");
      assert.equal(report.destination, destination);
      assert.equal(report.schemaVersion, SCHEMA_VERSION);
      assert.ok((report.items as number) >= beforeBackup.size, JSON.stringify(report));
      // The writers kept going while the copy was made (the point of an online backup).
      assert.ok(duringBackup > 0, "no write was acknowledged while the backup ran");
      assert.deepEqual(
        [...Deno.readDirSync(backupDir)].map((entry) => entry.name),
        ["backup.db"],
        "the backup left temporary files behind",
      );

      // The copy itself: intact, with the search index, job history and outbox tables.
      const copy = new DatabaseSync(destination, { readOnly: true });
      try {
        assert.deepEqual(
          copy.prepare("PRAGMA integrity_check").all().map((row) => ({ ...row })),
          [{ integrity_check: "ok" }],
        );
        const count = (sql: string) => (copy.prepare(sql).get() as { n: number }).n;
        // The embedded search engine keeps each physical index's documents in a table of its own.
        const docTables = copy.prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'search_docs_*'",
        ).all().map((row) => String(row.name));
        assert.ok(docTables.length > 0, "the backup holds no search index");
        const documents = docTables.reduce(
          (sum, table) => sum + count(`SELECT count(*) AS n FROM "${table}"`),
          0,
        );
        assert.ok(documents >= ITEMS_BEFORE_BACKUP);
        assert.equal(count(`SELECT count(*) AS n FROM index_jobs WHERE id = '${jobId}'`), 1);
        assert.ok(count("SELECT count(*) AS n FROM index_outbox") >= 0);
      } finally {
        copy.close();
      }

      // Restore: the backup becomes the data file of a fresh data directory.
      await Deno.copyFile(destination, join(restoredDir, LOCAL_DB_FILE));
      const restored = await startServiceProcess({ SERVICE_DATA_DIR: restoredDir });
      try {
        for (const [uri, etag] of beforeBackup) {
          const response = await fetch(`${restored.url}/api/item?${itemQuery(uri)}`);
          assert.equal(response.status, 200, `${uri} is missing from the restored service`);
          assert.equal(response.headers.get("etag"), etag, `${uri} came back with another ETag`);
          const graph = await response.json() as Record<string, unknown>;
          assert.equal(JSON.stringify(graph).includes(token), true, `${uri} lost its title`);
        }
        // Items written during the backup are in it or not, but never different.
        for (const [uri, etag] of acknowledged) {
          if (beforeBackup.has(uri)) continue;
          const response = await fetch(`${restored.url}/api/item?${itemQuery(uri)}`);
          await response.body?.cancel();
          if (response.status === 200) assert.equal(response.headers.get("etag"), etag);
          else assert.equal(response.status, 404);
        }
        const jobs = await getJson(`${restored.url}/api/admin/index/jobs`) as { id: string }[];
        assert.ok(jobs.some((job) => job.id === jobId), "the job history did not come along");
        // Outbox entries that were pending in the copy are indexed by the restored service.
        await waitForEmptyOutbox(restored.url);
        const search = await getJson(
          `${restored.url}/api/search?collection=${
            encodeURIComponent(DEMO_COLLECTION)
          }&q=${token}&size=10000`,
        ) as { hits: { uri: string }[] };
        const found = new Set(search.hits.map((hit) => hit.uri));
        for (const uri of beforeBackup.keys()) assert.ok(found.has(uri), `${uri} not searchable`);
      } finally {
        await restored.stop();
      }
    } finally {
      for (const dir of [dataDir, backupDir, restoredDir]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name: "backup refuses an existing destination and a data directory without a database",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-backup-refuse-" });
    try {
      const destination = join(dataDir, "existing.db");
      await Deno.writeTextFile(destination, "not a backup, and not to be overwritten");
      const missing = await runBackup(dataDir, join(dataDir, "new.db"));
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no database at/);

      const live = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
      try {
        const refused = await runBackup(dataDir, destination);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /exists; backups never overwrite a file/);
        assert.equal(
          await Deno.readTextFile(destination),
          "not a backup, and not to be overwritten",
        );
        const onto = await runBackup(dataDir, join(dataDir, LOCAL_DB_FILE));
        assert.equal(onto.code, 1);
        assert.match(onto.stderr, /must not be the live database/);
      } finally {
        await live.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "backup runs with the compiled executable's and the image's permissions, not more",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-backup-perms-" });
    // What `deno compile` grants the executable (scripts/compile.ts) and the image (Dockerfile):
    // `deno run` with the same flags has the same permissions.
    const shipped = {
      executable: compiledPermissions(Deno.readTextFileSync(`${ROOT}scripts/compile.ts`)),
      image: compiledPermissions(Deno.readTextFileSync(`${ROOT}Dockerfile`)),
    };
    try {
      const live = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
      try {
        const uri = "https://data.example.org/id/backup/permissions";
        const created = await fetch(
          `${live.url}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
          {
            method: "PUT",
            headers: { "Content-Type": "application/ld+json" },
            body: itemBody(uri, "p"),
          },
        );
        assert.equal(created.status, 201, await created.text());
        for (const [name, flags] of Object.entries(shipped)) {
          assert.ok(!flags.includes("--allow-all"), `${name} ships with --allow-all`);
          const destination = join(dataDir, `${name}.db`);
          const result = await runCommand(
            ["run", ...flags, "src/main.ts", "--backup", destination],
            dataDir,
          );
          assert.equal(result.code, 0, `${name}: ${result.stderr}`);
          const report = JSON.parse(result.stdout) as { items: number; integrity: string };
          assert.equal(report.integrity, "ok");
          assert.equal(report.items, 1, `${name}: ${result.stdout}`);
        }
      } finally {
        await live.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
