/**
 * Indexing jobs over real HTTP (`/api/admin/index…`), on every (store, search engine) pair
 * of testBackends(): the embedded ones always, OpenSearch when `SERVICE_OPENSEARCH_URL` is
 * set (`scripts/opensearch.sh start`), the SPARQL store when the `SERVICE_SPARQL_*` URLs
 * are (`scripts/fuseki.sh start`).
 *
 * Most tests stop the outbox worker first, so that only the job under test writes to the
 * index. Two use the job runner's `beforeBatch` hook: as a gate, to act while a job is
 * running, and as a unit-level seam, to make a rebuild fail halfway.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { startTestService, type TestService } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";
import { INTERRUPTED_MESSAGE } from "../../src/jobs/job_store.ts";
import { SqliteJobStore } from "../../src/job_stores/sqlite_job_store.ts";
import { IndexJobRunner } from "../../src/indexing/job_runner.ts";
import { IndexOutboxWorker } from "../../src/indexing/outbox_worker.ts";
import { collectionResolver } from "../../src/indexing/index_item.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { Catalog } from "../../src/catalog/catalog.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { EmbeddedSearchEngine } from "../../src/search_embedded/embedded_search_engine.ts";
import type { TripleStore } from "../../src/store/triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;

const LIBRARY = "https://data.example.org/workspace/library";
const BOOKS = "https://data.example.org/collection/books";
const PEOPLE = "https://data.example.org/collection/people";
const OTHER = "https://data.example.org/workspace/other";
const NOTES = "https://data.example.org/collection/notes";
const TITLE = "http://purl.org/dc/terms/title";
const PAGES = "https://schema.org/numberOfPages";

/** Items per job batch here: a few hundred items make several batches. */
const BATCH_SIZE = 100;

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}    indexing: { batchSize: ${BATCH_SIZE} }
workspaces:
  - uri: ${LIBRARY}
    name: Library
    collections:
      - uri: ${BOOKS}
        name: Books
        index: books
        mappings:
          properties:
            numberOfPages: { type: integer }
      - uri: ${PEOPLE}
        name: People
        index: people
  - uri: ${OTHER}
    name: Other
    collections:
      - uri: ${NOTES}
        name: Notes
        index: notes
`;

/** The job JSON keys, in docs/api.md's order. */
const JOB_KEYS = [
  "id",
  "scope",
  "clear",
  "state",
  "startedAt",
  "finishedAt",
  "total",
  "processed",
  "indexed",
  "deleted",
  "failed",
  "errors",
];

interface Job {
  id: string;
  scope: { type: string; uri: string; items?: string[] };
  clear: boolean;
  state: string;
  startedAt: string | null;
  finishedAt: string | null;
  total: number;
  processed: number;
  indexed: number;
  deleted: number;
  failed: number;
  errors: { item: string | null; message: string }[];
}

/** Runs `fn` on a fresh service; the OpenSearch indices it made are deleted afterwards. */
async function withService(
  env: Record<string, string>,
  fn: (service: TestService) => Promise<void>,
  dataDir?: string,
): Promise<void> {
  const service = await startTestService({ yaml: YAML, env, dataDir });
  try {
    await fn(service);
  } finally {
    await service.close();
    const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
    if (prefix && !dataDir) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
  }
}

function itemUri(label: string, n: number): string {
  return `https://data.example.org/id/${label}/${String(n).padStart(5, "0")}`;
}

/** Creates an item straight through the item service (fast; same outbox path as HTTP). */
async function createItem(
  service: TestService,
  collection: string,
  uri: string,
  title: string,
  extra: [string, string][] = [],
): Promise<void> {
  const subject = namedNode(uri);
  const quads = [quad(subject, namedNode(TITLE), literal(title))];
  for (const [predicate, value] of extra) {
    quads.push(quad(subject, namedNode(predicate), literal(value)));
  }
  await service.services.deps.items.create(collection, uri, quads);
}

async function createItems(
  service: TestService,
  collection: string,
  label: string,
  count: number,
): Promise<string[]> {
  const uris: string[] = [];
  for (let n = 0; n < count; n++) {
    const uri = itemUri(label, n);
    await createItem(service, collection, uri, `${label} number ${n}`);
    uris.push(uri);
  }
  return uris;
}

async function deleteItem(service: TestService, collection: string, uri: string) {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`,
    { method: "DELETE" },
  );
  assert.equal(response.status, 204, await response.text());
}

async function startJob(service: TestService, path: string, query: string): Promise<Response> {
  return await service.fetch(`/api/admin/index${path}?${query}`, { method: "POST" });
}

/** Runs a job with `wait=true` and returns the finished job. */
async function runJob(service: TestService, path: string, query: string): Promise<Job> {
  const response = await startJob(service, path, `${query}&wait=true`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

async function getJson<T>(service: TestService, path: string): Promise<T> {
  const response = await service.fetch(path);
  const text = await response.text();
  assert.equal(response.status, 200, `${path}: ${text}`);
  return JSON.parse(text);
}

interface SearchResult {
  total: number;
  hits: { uri: string; document: Record<string, unknown> }[];
  facets?: Record<string, { value: unknown; count: number }[]>;
}

function search(service: TestService, collection: string, query = ""): Promise<SearchResult> {
  return getJson(service, `/api/search?collection=${encodeURIComponent(collection)}&${query}`);
}

async function waitForJob(service: TestService, id: string): Promise<Job> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = await getJson<Job>(service, `/api/admin/index/jobs/${id}`);
    if (job.state === "succeeded" || job.state === "failed") return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${id} did not finish`);
}

/** A promise with its resolve function: a gate a hook waits at. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { opened, open };
}

const ws = (uri: string) => `workspace=${encodeURIComponent(uri)}`;
const col = (uri: string) => `collection=${encodeURIComponent(uri)}`;

for (const backend of testBackends("index-api", { allStores: true })) {
  const test = (name: string, fn: (env: Record<string, string>) => Promise<void>) =>
    Deno.test({
      name: `[indexing/${backend.name}] ${name}`,
      ignore: backend.ignore,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: () => fn(backend.env()),
    });

  test("a workspace job indexes every collection and answers the job JSON", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      const books = await createItems(service, BOOKS, "book", 5);
      await createItems(service, PEOPLE, "person", 3);
      await createItems(service, NOTES, "note", 2);
      assert.equal((await search(service, BOOKS)).total, 0, "nothing indexed before the job");

      const response = await startJob(service, "", `${ws(LIBRARY)}&wait=true`);
      assert.equal(response.status, 200);
      const job: Job = await response.json();
      assert.equal(response.headers.get("location"), `/api/admin/index/jobs/${job.id}`);
      assert.deepEqual(Object.keys(job), JOB_KEYS);
      assert.deepEqual(job.scope, { type: "workspace", uri: LIBRARY });
      assert.equal(job.clear, false);
      assert.equal(job.state, "succeeded");
      assert.ok(Date.parse(job.startedAt!) <= Date.parse(job.finishedAt!));
      assert.deepEqual(
        [job.total, job.processed, job.indexed, job.deleted, job.failed],
        [8, 8, 8, 0, 0],
      );
      assert.deepEqual(job.errors, []);

      const found = await search(service, BOOKS, "size=100");
      assert.deepEqual(found.hits.map((hit) => hit.uri).sort(), books);
      assert.equal(found.hits[0].document.title, "book number 0");
      assert.equal((await search(service, PEOPLE)).total, 3);
      assert.equal((await search(service, NOTES)).total, 0, "another workspace is left alone");
      assert.deepEqual(await getJson(service, `/api/admin/index/jobs/${job.id}`), job);
    }));

  test("202 at once, is-running, 409 with the running job, history newest first", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      await createItems(service, BOOKS, "book", 3);
      const first = await runJob(service, "/collection", col(PEOPLE));
      assert.equal(await getJson(service, "/api/admin/index/is-running"), false);

      const hold = gate();
      const held = gate();
      service.services.deps.indexJobs.hooks.beforeBatch = () => {
        held.open();
        return hold.opened;
      };
      const started = await startJob(service, "/collection", col(BOOKS));
      assert.equal(started.status, 202);
      const job: Job = await started.json();
      assert.deepEqual(Object.keys(job), JOB_KEYS);
      assert.equal(job.state, "running");
      assert.equal(started.headers.get("location"), `/api/admin/index/jobs/${job.id}`);
      assert.equal(await getJson(service, "/api/admin/index/is-running"), true);

      const refused = await expectProblem(
        await startJob(service, "", ws(LIBRARY)),
        409,
        "indexing-running",
      );
      assert.equal(refused.runningJob, job.id);
      await expectProblem(
        await startJob(
          service,
          "/items",
          `${col(BOOKS)}&item=${encodeURIComponent(itemUri("book", 0))}`,
        ),
        409,
        "indexing-running",
      );
      // The total is counted before the first batch: on a remote store that takes a
      // request, so look once the job waits at its first batch.
      await held.opened;
      const running = await getJson<Job>(service, `/api/admin/index/jobs/${job.id}`);
      assert.equal(running.state, "running");
      assert.equal(running.total, 3);
      assert.equal(running.finishedAt, null);

      hold.open();
      const finished = await waitForJob(service, job.id);
      assert.equal(finished.state, "succeeded");
      assert.equal(finished.indexed, 3);
      assert.equal(await getJson(service, "/api/admin/index/is-running"), false);
      const history = await getJson<Job[]>(service, "/api/admin/index/jobs");
      assert.deepEqual(history.map((entry) => entry.id), [job.id, first.id]);
      assert.deepEqual(history[0], finished);
    }));

  test("without clear, documents of deleted items are removed", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      const books = await createItems(service, BOOKS, "book", 4);
      const people = await createItems(service, PEOPLE, "person", 2);
      await runJob(service, "", ws(LIBRARY));
      assert.equal((await search(service, BOOKS)).total, 4);
      await deleteItem(service, BOOKS, books[1]);
      await deleteItem(service, BOOKS, books[3]);
      await deleteItem(service, PEOPLE, people[0]);
      // The outbox worker is stopped: only the job can remove the documents.
      assert.equal((await search(service, BOOKS)).total, 4);

      const job = await runJob(service, "", `${ws(LIBRARY)}&clear=false`);
      assert.equal(job.state, "succeeded");
      assert.deepEqual([job.total, job.indexed, job.deleted, job.failed], [3, 3, 3, 0]);
      const remaining = await search(service, BOOKS, "size=100");
      assert.deepEqual(remaining.hits.map((hit) => hit.uri).sort(), [books[0], books[2]]);
      assert.deepEqual((await search(service, PEOPLE)).hits.map((hit) => hit.uri), [people[1]]);
    }));

  test("an items job indexes the listed items and removes listed items that are gone", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      const [a, , c] = await createItems(service, BOOKS, "book", 3);
      await runJob(service, "/items", `${col(BOOKS)}&item=${encodeURIComponent(c)}`);
      await deleteItem(service, BOOKS, c);
      const never = itemUri("book", 999);
      const items = [a, c, never].map((uri) => `item=${encodeURIComponent(uri)}`).join("&");
      const job = await runJob(service, "/items", `${col(BOOKS)}&${items}`);
      assert.deepEqual(job.scope, { type: "items", uri: BOOKS, items: [a, c, never] });
      assert.equal(job.state, "succeeded");
      assert.deepEqual(
        [job.total, job.processed, job.indexed, job.deleted, job.failed],
        [3, 3, 1, 2, 0],
      );
      assert.deepEqual(job.errors, []);
      assert.deepEqual((await search(service, BOOKS)).hits.map((hit) => hit.uri), [a]);
    }));

  test("documents the engine refuses are recorded per item, the job still succeeds", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      await createItems(service, BOOKS, "book", 3);
      const bad = itemUri("bad", 0);
      await createItem(service, BOOKS, bad, "Bad pages", [[PAGES, "many"]]);
      const job = await runJob(service, "/collection", col(BOOKS));
      assert.equal(job.state, "succeeded");
      assert.deepEqual([job.total, job.indexed, job.failed], [4, 3, 1]);
      assert.equal(job.errors.length, 1);
      assert.equal(job.errors[0].item, bad);
      assert.match(job.errors[0].message, /\S/);
      assert.equal((await search(service, BOOKS)).total, 3);
    }));

  test("clear=true: searches during the rebuild answer from the old or the new index", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      await createItems(service, BOOKS, "book", 450);
      await runJob(service, "/collection", col(BOOKS));
      await createItems(service, BOOKS, "late", 50);
      service.services.deps.indexJobs.hooks.beforeBatch = () =>
        new Promise((resolve) => setTimeout(resolve, 150));

      const started = await startJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(started.status, 202);
      const job: Job = await started.json();
      assert.equal(job.clear, true);
      const totals: number[] = [];
      while (service.services.deps.indexJobs.isRunning()) {
        const [all, word] = await Promise.all([
          search(service, BOOKS, "size=0"),
          search(service, BOOKS, "q=number&size=1"),
        ]);
        // Each search answers from the old index or the new one, whole; the two may fall
        // on either side of the swap.
        totals.push(all.total, word.total);
      }
      const finished = await waitForJob(service, job.id);
      assert.equal(finished.state, "succeeded");
      assert.deepEqual([finished.total, finished.indexed], [500, 500]);
      assert.ok(totals.length >= 5, `searched ${totals.length} times during the rebuild`);
      assert.ok(totals.every((total) => total === 450 || total === 500), totals.join(","));
      assert.equal(totals[0], 450, "the old index serves while the new one fills");
      assert.equal((await search(service, BOOKS, "size=0")).total, 500);
    }));

  test("a rebuild that fails halfway leaves the old index serving (hook seam)", (env) =>
    withService(env, async (service) => {
      await service.services.deps.indexOutbox.stop();
      // Three batches: the job fails after the first.
      await createItems(service, BOOKS, "book", 250);
      await runJob(service, "/collection", col(BOOKS));
      // Changed in the store only: a rebuild would show it.
      await service.services.deps.items.update(BOOKS, itemUri("book", 0), [
        quad(namedNode(itemUri("book", 0)), namedNode(TITLE), literal("Renamed")),
      ]);
      service.services.deps.indexJobs.hooks.beforeBatch = (_job, batch) => {
        if (batch === 1) throw new Error("injected failure after the first batch");
      };
      const failed = await runJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(failed.state, "failed");
      // The first batch was written; the hook failed the job before the second.
      assert.equal(failed.processed, BATCH_SIZE);
      assert.deepEqual(failed.errors, [{
        item: null,
        message: "injected failure after the first batch",
      }]);
      assert.equal(await getJson(service, "/api/admin/index/is-running"), false);
      assert.equal((await search(service, BOOKS, "size=0")).total, 250);
      assert.equal((await search(service, BOOKS, "q=renamed")).total, 0);
      assert.equal((await search(service, BOOKS, "q=book%20number%200")).total, 1);

      service.services.deps.indexJobs.hooks.beforeBatch = undefined;
      const retried = await runJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(retried.state, "succeeded");
      assert.equal((await search(service, BOOKS, "size=0")).total, 250);
      assert.equal((await search(service, BOOKS, "q=renamed")).total, 1);
    }));

  test("writes made during a rebuild are in the final index", (env) =>
    withService(env, async (service) => {
      const deps = service.services.deps;
      const books = await createItems(service, BOOKS, "book", 450);
      await deps.indexOutbox.drain();
      // Sorts before every listed item: only the outbox worker can bring it in.
      const early = "https://data.example.org/id/aaa/early";
      deps.indexJobs.hooks.beforeBatch = async (_job, batch) => {
        if (batch !== 1) return;
        await deps.items.update(BOOKS, books[0], [
          quad(namedNode(books[0]), namedNode(TITLE), literal("Rewritten")),
        ]);
        await deleteItem(service, BOOKS, books[1]);
        await createItem(service, BOOKS, early, "Early bird");
        await deps.indexOutbox.drain();
      };
      const job = await runJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(job.state, "succeeded");
      await deps.indexOutbox.drain();
      assert.equal((await search(service, BOOKS, "size=0")).total, 450);
      assert.deepEqual((await search(service, BOOKS, "q=rewritten")).hits.map((hit) => hit.uri), [
        books[0],
      ]);
      assert.deepEqual((await search(service, BOOKS, "q=early")).hits.map((hit) => hit.uri), [
        early,
      ]);
      assert.equal((await search(service, BOOKS, "q=book%20number%201")).total, 0);
    }));

  test("bad parameters: 400, unknown scopes: 404", (env) =>
    withService(env, async (service) => {
      const item = `item=${encodeURIComponent(itemUri("book", 0))}`;
      const bad: [string, string, string][] = [
        ["", `${ws(LIBRARY)}&clear=yes`, "invalid-boolean"],
        ["", `${ws(LIBRARY)}&wait=1`, "invalid-boolean"],
        ["", "", "missing-parameter"],
        ["", "workspace=library", "invalid-iri"],
        ["/collection", `${col(BOOKS)}&clear=TRUE`, "invalid-boolean"],
        ["/collection", "", "missing-parameter"],
        ["/items", col(BOOKS), "missing-parameter"],
        ["/items", item, "missing-parameter"],
        ["/items", `${col(BOOKS)}&item=not%20an%20iri`, "invalid-iri"],
      ];
      for (const [path, query, slug] of bad) {
        await expectProblem(await startJob(service, path, query), 400, slug);
      }
      const unknown = encodeURIComponent("https://data.example.org/nothing");
      await expectProblem(
        await startJob(service, "", `workspace=${unknown}`),
        404,
        "workspace-not-found",
      );
      await expectProblem(
        await startJob(service, "/collection", `collection=${unknown}`),
        404,
        "collection-not-found",
      );
      await expectProblem(
        await startJob(service, "/items", `collection=${unknown}&${item}`),
        404,
        "collection-not-found",
      );
      await expectProblem(
        await service.fetch("/api/admin/index/jobs/no-such-job"),
        404,
        "job-not-found",
      );
      assert.deepEqual(await getJson(service, "/api/admin/index/jobs"), []);
    }));

  test("job history survives a restart; a job a crash interrupted is marked failed", (env) => {
    return (async () => {
      const dataDir = await Deno.makeTempDir({ prefix: "rcs-jobs-" });
      try {
        let finished!: Job;
        await withService(env, async (service) => {
          await createItems(service, BOOKS, "book", 2);
          finished = await runJob(service, "/collection", col(BOOKS));
        }, dataDir);

        // A service that stops answering mid-job, never closed: as if the process died.
        const crashed = await startTestService({ yaml: YAML, env, dataDir });
        const hold = gate();
        const stalled = gate();
        crashed.services.deps.indexJobs.hooks.beforeBatch = async () => {
          stalled.open();
          await hold.opened;
          throw new Error("the crashed process resumed");
        };
        const started = await startJob(crashed, "", ws(LIBRARY));
        assert.equal(started.status, 202);
        const interrupted: Job = await started.json();
        // Dead from its first batch on: it saves no progress over what the restart records.
        await stalled.opened;
        try {
          await withService(env, async (service) => {
            assert.deepEqual(
              await getJson(service, `/api/admin/index/jobs/${finished.id}`),
              finished,
            );
            const failed = await getJson<Job>(service, `/api/admin/index/jobs/${interrupted.id}`);
            assert.equal(failed.state, "failed");
            assert.ok(failed.finishedAt);
            assert.deepEqual(failed.errors, [{ item: null, message: INTERRUPTED_MESSAGE }]);
            assert.equal(await getJson(service, "/api/admin/index/is-running"), false);
            const history = await getJson<Job[]>(service, "/api/admin/index/jobs");
            assert.deepEqual(history.map((job) => job.id), [interrupted.id, finished.id]);
          }, dataDir);
        } finally {
          hold.open();
          await crashed.close();
        }
      } finally {
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
        await Deno.remove(dataDir, { recursive: true });
      }
    })();
  });
}

/**
 * The race the job runner guards against, made deterministic: the job reads an item, the
 * item changes and the outbox worker indexes the change, then the job writes what it read.
 * The store is the real embedded store with one read delayed around a real write (a
 * unit-level seam); the engine and the worker are real.
 */
async function raceJobAgainstWrite(withChangeFeed: boolean): Promise<string | undefined> {
  const config = parseConfigText(
    YAML,
    "test",
    (name) => name === "SERVICE_DATA_DIR" ? ":memory:" : undefined,
  );
  const db = openLocalDatabase(":memory:");
  const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  const engine = new EmbeddedSearchEngine(db, {
    limits: config.service.search.query,
    warn: () => {},
  });
  const catalog = new Catalog(config.workspaces);
  const resolve = collectionResolver(config, catalog);
  const { leaseMs } = config.service.cluster;
  const worker = new IndexOutboxWorker({ store, engine, resolve, leaseMs });
  const uri = itemUri("book", 0);
  const titled = (title: string) => [quad(namedNode(uri), namedNode(TITLE), literal(title))];
  let raced = false;
  const racing = new Proxy(store, {
    get(target, property) {
      if (property === "readItemGraphs") {
        return async (collection: string, items: string[]) => {
          const read = await target.readItemGraphs(collection, items);
          if (items.includes(uri) && !raced) {
            raced = true;
            await target.replaceItem({ collection, uri, quads: titled("Newer"), hash: "2" });
            await worker.drain();
          }
          return read;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as TripleStore;
  const runner = new IndexJobRunner({
    jobs: new SqliteJobStore(db),
    store: racing,
    engine,
    catalog,
    resolve,
    outbox: withChangeFeed ? store.outbox : undefined,
    batchSize: config.service.search.indexing.batchSize,
    leaseMs,
  });
  worker.start();
  try {
    await store.createItem({ collection: BOOKS, uri, quads: titled("Older"), hash: "1" });
    await worker.drain();
    const job = await runner.start({ type: "collection", uri: BOOKS });
    assert.equal((await runner.wait(job.id))?.state, "succeeded");
    assert.ok(raced);
    await worker.drain();
    const { hits } = await engine.search(resolve(BOOKS).ref, {});
    assert.equal(hits.length, 1);
    return hits[0].document.title as string | undefined;
  } finally {
    await runner.close();
    await worker.stop();
    db.close();
  }
}

Deno.test("[indexing/embedded] a write that races a job's read is re-applied after the job", async () => {
  assert.equal(await raceJobAgainstWrite(true), "Newer");
  // Without the worker's change feed the job's stale write still comes last, but index
  // writes are versioned (src/search/document_version.ts): it loses to the newer one.
  assert.equal(await raceJobAgainstWrite(false), "Newer");
});

/** The test configuration with `workers` indexing worker threads. */
function yamlWithWorkers(workers: number): string {
  const setting = `indexing: { batchSize: ${BATCH_SIZE} }`;
  assert.ok(YAML.includes(setting));
  return YAML.replace(setting, `indexing: { batchSize: ${BATCH_SIZE}, workers: ${workers} }`);
}

/**
 * What `run` answers on a service over a data directory with no indexing workers, then with
 * two. Every connection is closed when a service stops, the service's last: it copied the WAL
 * back and removed it.
 */
async function answersWithWorkers(
  run: (service: TestService) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>[]> {
  const answers: Record<string, unknown>[] = [];
  for (const workers of [0, 2]) {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-test-" });
    const service = await startTestService({ yaml: yamlWithWorkers(workers), dataDir });
    try {
      answers.push(await run(service));
    } finally {
      await service.close();
    }
    const files = [...Deno.readDirSync(dataDir)].map((entry) => entry.name);
    await Deno.remove(dataDir, { recursive: true });
    assert.ok(!files.some((name) => name.endsWith("-wal")), files.join(", "));
  }
  return answers;
}

Deno.test({
  name: "[indexing/embedded] batches on worker threads index what the request thread indexes",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [inline, pooled] = await answersWithWorkers(async (service) => {
      const deps = service.services.deps;
      // Only the jobs index here: the outbox worker would index every write.
      await deps.indexOutbox.stop();
      for (let n = 0; n < 350; n++) {
        const colour = ["red", "blue", "green"][n % 3];
        await createItem(service, BOOKS, itemUri("book", n), `Book number ${n}, ${colour}`, [
          [PAGES, String(n)],
        ]);
      }
      // A document in the index whose item is gone: a job without `clear` removes it.
      const gone = itemUri("book", 7);
      const rebuilt = await runJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(rebuilt.state, "succeeded", JSON.stringify(rebuilt.errors));
      assert.deepEqual([rebuilt.processed, rebuilt.indexed, rebuilt.failed], [350, 350, 0]);
      await deleteItem(service, BOOKS, gone);
      const updated = await runJob(service, "/collection", col(BOOKS));
      assert.deepEqual([updated.processed, updated.indexed, updated.deleted], [349, 349, 1]);
      const uris = (result: SearchResult) => result.hits.map((hit) => hit.uri);
      return {
        red: uris(await search(service, BOOKS, "q=red&size=200&sort=uri")),
        pages: uris(
          await search(service, BOOKS, "range=numberOfPages:100..120&size=50&sort=uri"),
        ),
        exact: uris(await search(service, BOOKS, "filter=numberOfPages:42")),
        stems: uris(await search(service, BOOKS, "q=books&size=5&sort=uri")),
        facet: (await search(service, BOOKS, "q=green&facet=numberOfPages&facetSize=3")).facets,
        total: (await search(service, BOOKS, "size=0")).total,
      };
    });
    assert.equal(inline.total, 349);
    assert.equal((inline.red as string[]).length, 117);
    assert.deepEqual(pooled, inline);
  },
});

Deno.test({
  name:
    "[indexing/embedded] the outbox's writes on worker threads: searches and facets after writes",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const [inline, pooled] = await answersWithWorkers(async (service) => {
      const { indexOutbox } = service.services.deps;
      const pages = async (query: string) =>
        Object.fromEntries(
          (await search(service, BOOKS, `${query}&facet=numberOfPages&size=0`)).facets!
            .numberOfPages.map(({ value, count }) => [String(value), count]),
        );
      for (let n = 0; n < 120; n++) {
        const colour = ["red", "blue", "green"][n % 3];
        await createItem(service, BOOKS, itemUri("book", n), `Book ${n}, ${colour}`, [
          [PAGES, String(n % 4)],
        ]);
      }
      await indexOutbox.drain();
      const before = await pages("q=red");
      // Facet values are held now; writes change them, and deletes remove them.
      for (let n = 0; n < 12; n++) {
        await service.services.deps.items.update(BOOKS, itemUri("book", n), [
          quad(namedNode(itemUri("book", n)), namedNode(TITLE), literal(`Book ${n}, red`)),
          quad(namedNode(itemUri("book", n)), namedNode(PAGES), literal("9")),
        ]);
      }
      for (const n of [30, 33, 36]) await deleteItem(service, BOOKS, itemUri("book", n));
      await indexOutbox.drain();
      const after = await pages("q=red");
      const rebuilt = await runJob(service, "/collection", `${col(BOOKS)}&clear=true`);
      assert.equal(rebuilt.state, "succeeded", JSON.stringify(rebuilt.errors));
      await createItem(service, BOOKS, itemUri("book", 500), "Book 500, red", [[PAGES, "9"]]);
      await indexOutbox.drain();
      return {
        before,
        after,
        rebuilt: await pages("q=red"),
        total: (await search(service, BOOKS, "size=0")).total,
      };
    });
    // 40 red books, 10 of each page count; then books 0-11 red with 9 pages, three red gone.
    assert.deepEqual(inline.before, { 0: 10, 1: 10, 2: 10, 3: 10 });
    assert.deepEqual(inline.after, { 9: 12, 0: 8, 1: 8, 2: 8, 3: 9 });
    assert.deepEqual(inline.rebuilt, { 9: 13, 0: 8, 1: 8, 2: 8, 3: 9 });
    assert.equal(inline.total, 118);
    assert.deepEqual(pooled, inline);
  },
});
