/**
 * The index outbox over real HTTP: item writes reach the index through the outbox worker,
 * and an OpenSearch outage loses nothing.
 *
 * The outage is a real network fault: the service talks to the real OpenSearch node through
 * a loopback TCP proxy that the test closes (connections refused) and opens again on the
 * same port. Those tests need `SERVICE_OPENSEARCH_URL`; the others run on both engines.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startTestService, type TestService } from "../support/service.ts";
import {
  deleteIndicesWithPrefix,
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { LoopbackProxy } from "../support/loopback_proxy.ts";
import { SEARCH_YAML } from "../support/backends.ts";

const BOOKS = "https://data.example.org/collection/books";
const DROPPED = "https://data.example.org/collection/dropped";
const TITLE = "http://purl.org/dc/terms/title";
const PAGES = "https://schema.org/numberOfPages";

/** Items per job batch: 450 items make three, so a rebuild can be cut after the first. */
const BATCH_SIZE = 200;

function yaml(withDropped = true): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${SEARCH_YAML}    indexing: { batchSize: ${BATCH_SIZE} }
workspaces:
  - uri: https://data.example.org/workspace/library
    name: Library
    collections:
      - uri: ${BOOKS}
        name: Books
        index: books
        mappings:
          properties:
            numberOfPages: { type: integer }
${
    withDropped
      ? `      - uri: ${DROPPED}
        name: Dropped later
        index: dropped
`
      : ""
  }`;
}

function itemUri(n: number): string {
  return `https://data.example.org/id/book/${String(n).padStart(4, "0")}`;
}

async function putItem(
  service: TestService,
  uri: string,
  title: string,
  method = "PUT",
  extra: Record<string, string> = {},
  collection = BOOKS,
): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`,
    {
      method,
      headers: { "Content-Type": "application/ld+json" },
      body: JSON.stringify({ "@id": uri, [TITLE]: title, ...extra }),
    },
  );
  assert.equal(response.status, method === "PUT" ? 201 : 204, await response.text());
}

interface SearchResult {
  total: number;
  hits: { uri: string; document: Record<string, unknown> }[];
}

async function search(service: TestService, query: string): Promise<SearchResult> {
  const response = await service.fetch(
    `/api/search?collection=${encodeURIComponent(BOOKS)}&${query}`,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

interface Readiness {
  status: string;
  checks: Record<string, { ok: boolean; detail: string | number }>;
}

async function ready(service: TestService): Promise<{ status: number; body: Readiness }> {
  const response = await service.fetch("/ready");
  return { status: response.status, body: await response.json() };
}

/** `attempts` of the outbox rows, read from the service's SQLite file. */
function outboxAttempts(service: TestService): number[] {
  const db = new DatabaseSync(join(service.config.service.data.dir, LOCAL_DB_FILE), {
    readOnly: true,
  });
  try {
    const rows = db.prepare("SELECT attempts FROM index_outbox ORDER BY id").all();
    return rows.map((row) => Number(row.attempts));
  } finally {
    db.close();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function eventually(check: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

const url = openSearchUrl();
if (!url) reportOpenSearchSkipped();

const engines = [
  { name: "embedded", ignore: false, env: (): Record<string, string> => ({}) },
  {
    name: "opensearch",
    ignore: url === undefined,
    env: (): Record<string, string> => ({
      SERVICE_SEARCH_BACKEND: "opensearch",
      SERVICE_OPENSEARCH_URL: url ?? "",
      SERVICE_OPENSEARCH_INDEX_PREFIX: uniqueIndexPrefix("outbox-api"),
    }),
  },
];

for (const engine of engines) {
  const test = (name: string, fn: (env: Record<string, string>) => Promise<void>) =>
    Deno.test({
      name: `[outbox/${engine.name}] ${name}`,
      ignore: engine.ignore,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const env = engine.env();
        try {
          await fn(env);
        } finally {
          const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
          if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
        }
      },
    });

  test("a paused worker leaves a backlog that /ready reports and that drains later", async (env) => {
    const service = await startTestService({ yaml: yaml(), env });
    try {
      await service.services.deps.indexOutbox.stop();
      for (let n = 0; n < 100; n++) await putItem(service, itemUri(n), `Paused ${n}`);
      const paused = await ready(service);
      assert.equal(paused.status, 200);
      assert.deepEqual(paused.body.checks.outbox, { ok: true, detail: 100 });
      assert.equal(paused.body.checks.search.ok, true);
      assert.equal((await search(service, "size=0")).total, 0);

      service.services.deps.indexOutbox.start();
      await service.services.deps.indexOutbox.drain();
      const found = await search(service, "size=200");
      assert.equal(found.total, 100);
      assert.equal(new Set(found.hits.map((hit) => hit.uri)).size, 100);
      assert.deepEqual((await ready(service)).body.checks.outbox, { ok: true, detail: 0 });
    } finally {
      await service.close();
    }
  });

  test("a document the engine refuses is dropped, not retried forever", async (env) => {
    const service = await startTestService({ yaml: yaml(), env });
    try {
      await putItem(service, itemUri(1), "Fine");
      await putItem(service, itemUri(2), "Refused", "PUT", { [PAGES]: "many" });
      await putItem(service, itemUri(3), "Also fine");
      await service.services.deps.indexOutbox.drain();
      assert.equal(await service.services.deps.indexOutbox.backlog(), 0);
      const found = await search(service, "size=10");
      assert.deepEqual(found.hits.map((hit) => hit.uri).sort(), [itemUri(1), itemUri(3)]);
      // A dead letter: shown in /ready and /metrics, never holding up the backlog.
      const { body } = await ready(service);
      assert.equal(body.checks.deadLetters.ok, true);
      assert.match(String(body.checks.deadLetters.detail), /^1 items not indexed/);
      assert.ok(String(body.checks.deadLetters.detail).includes(itemUri(2)));
      const metrics = await (await service.fetch("/metrics")).text();
      assert.match(metrics, /^rcs_index_dead_letters 1$/m);
    } finally {
      await service.close();
    }
  });

  test("entries of a collection no longer configured are dropped at the next start", async (env) => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-outbox-" });
    try {
      const before = await startTestService({ yaml: yaml(), env, dataDir });
      try {
        await before.services.deps.indexOutbox.stop();
        await putItem(before, itemUri(1), "Kept");
        await putItem(before, itemUri(2), "Orphan", "PUT", {}, DROPPED);
      } finally {
        await before.close();
      }
      const after = await startTestService({ yaml: yaml(false), env, dataDir });
      try {
        await after.services.deps.indexOutbox.drain();
        assert.deepEqual((await search(after, "")).hits.map((hit) => hit.uri), [itemUri(1)]);
      } finally {
        await after.close();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}

/** Starts a service that reaches OpenSearch only through `proxy`. */
function startBehindProxy(proxy: LoopbackProxy, prefix: string): Promise<TestService> {
  return startTestService({
    yaml: yaml(),
    env: {
      SERVICE_SEARCH_BACKEND: "opensearch",
      SERVICE_OPENSEARCH_URL: `http://127.0.0.1:${proxy.port}`,
      SERVICE_OPENSEARCH_INDEX_PREFIX: prefix,
    },
  });
}

function proxyToOpenSearch(): LoopbackProxy {
  return LoopbackProxy.to(url!);
}

Deno.test({
  name: "[outbox/opensearch] 100 writes during an outage are all searchable once it ends",
  ignore: url === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const proxy = proxyToOpenSearch();
    proxy.open();
    proxy.close();
    const prefix = uniqueIndexPrefix("outage");
    const service = await startBehindProxy(proxy, prefix);
    try {
      for (let n = 0; n < 100; n++) await putItem(service, itemUri(n), `Written while down ${n}`);
      const down = await ready(service);
      // Degraded, not unready: the store serves (docs/operations.md).
      assert.equal(down.status, 200);
      assert.equal(down.body.status, "degraded");
      assert.deepEqual(down.body.checks.outbox, { ok: true, detail: 100 });
      assert.equal(down.body.checks.search.ok, false);
      // The worker keeps trying, backing off: every entry is kept and counts its attempts.
      await eventually(() => outboxAttempts(service).every((attempts) => attempts >= 2), "retries");
      assert.equal(outboxAttempts(service).length, 100);

      // Later writes to the same items queue behind: the newest state must win.
      await putItem(service, itemUri(0), "Rewritten while down", "POST");
      await putItem(service, itemUri(0), "Rewritten twice while down", "POST");

      proxy.open();
      await service.services.deps.indexOutbox.drain(30_000);
      const found = await search(service, "size=500");
      assert.equal(found.total, 100);
      const uris = found.hits.map((hit) => hit.uri).sort();
      assert.deepEqual(uris, Array.from({ length: 100 }, (_, n) => itemUri(n)));
      assert.deepEqual(
        (await search(service, "q=rewritten%20twice")).hits.map((hit) => hit.uri),
        [itemUri(0)],
      );
      const up = await ready(service);
      assert.equal(up.status, 200);
      assert.deepEqual(up.body.checks.outbox, { ok: true, detail: 0 });
    } finally {
      await service.close();
      proxy.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});

Deno.test({
  name: "[outbox/opensearch] a rebuild cut off by an outage leaves the old index serving",
  ignore: url === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const proxy = proxyToOpenSearch();
    proxy.open();
    const prefix = uniqueIndexPrefix("rebuild-outage");
    const service = await startBehindProxy(proxy, prefix);
    const deps = service.services.deps;
    try {
      for (let n = 0; n < 450; n++) await putItem(service, itemUri(n), `Original ${n}`);
      await deps.indexOutbox.drain();
      await deps.indexOutbox.stop();
      await putItem(service, itemUri(0), "Renamed in the store only", "POST");
      // The real fault, at a chosen point: the network to OpenSearch goes away mid-rebuild.
      deps.indexJobs.hooks.beforeBatch = async (job, batch) => {
        if (batch !== 1) return;
        // The first batch's write may still be pending: cut the network once it is done.
        while ((deps.indexJobs.get(job.id)?.processed ?? 0) < BATCH_SIZE) await delay(5);
        proxy.close();
      };
      const response = await service.fetch(
        `/api/admin/index/collection?collection=${encodeURIComponent(BOOKS)}&clear=true&wait=true`,
        { method: "POST" },
      );
      const job = await response.json();
      assert.equal(job.state, "failed");
      assert.equal(job.processed, BATCH_SIZE);
      assert.equal(job.errors[0].item, null);
      assert.match(job.errors[0].message, /OpenSearch/);

      proxy.open();
      // Marked down after the failures (service.failFast): searchable once its probe says so.
      for (let tries = 0; !(await ready(service)).body.checks.search.ok; tries++) {
        assert.ok(tries < 150, "search not seen back");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal((await search(service, "size=0")).total, 450);
      assert.equal((await search(service, "q=renamed")).total, 0);
      assert.equal((await search(service, "q=original%200")).total, 1);

      deps.indexJobs.hooks.beforeBatch = undefined;
      const retried = await service.fetch(
        `/api/admin/index/collection?collection=${encodeURIComponent(BOOKS)}&clear=true&wait=true`,
        { method: "POST" },
      );
      assert.equal((await retried.json()).state, "succeeded");
      assert.equal((await search(service, "size=0")).total, 450);
      assert.equal((await search(service, "q=renamed")).total, 1);
    } finally {
      await service.close();
      proxy.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});
