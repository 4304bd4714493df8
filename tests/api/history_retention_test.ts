/**
 * History retention, pruning and export as of a time over real HTTP (issue 41; docs/api.md,
 * "History retention and pruning" and `GET /api/admin/export`): a collection's
 * `history.retention` (or `service.history.retention`) decides what a pruning job removes,
 * never an item's newest version; a deleted item keeps its delete and still answers 410; the
 * job reports its progress and ends; `rcs_item_versions_pruned_total` counts; bad settings
 * are refused naming the field; an export `asOf` a time between two imports equals the first
 * import's export, compared as canonical N-Quads.
 *
 * On every store: the embedded store and the SPARQL store (on Fuseki).
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import {
  DEMO_COLLECTION,
  DEMO_WORKSPACE,
  itemQuery,
  type StoreBackend,
  storeBackends,
  storeTest,
  type TestService,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { canonicalize } from "../../src/rdf/canonical_hash.ts";

const TITLE = "http://purl.org/dc/terms/title";
const JSON_TYPE = { "Content-Type": "application/json" };
/** Every store's history prunes. */
const HISTORY_BACKENDS = storeBackends();

interface PruneJob {
  id: string;
  collection: string | null;
  state: string;
  total: number;
  processed: number;
  pruned: number;
  collections: {
    collection: string;
    retention: string;
    items: number;
    processed: number;
    pruned: number;
  }[];
  errors: unknown[];
}

function retentionTest(
  backend: StoreBackend,
  name: string,
  fn: (service: TestService) => Promise<void>,
  env: Record<string, string> = {},
): void {
  storeTest("history-retention", backend, name, fn, { env });
}

/** Makes a collection at run time with this retention (undefined: none of its own). */
async function makeCollection(service: TestService, retention?: string): Promise<string> {
  const uri = `https://data.example.org/collection/retention-${crypto.randomUUID()}`;
  const response = await service.fetch("/api/admin/collections", {
    method: "POST",
    headers: JSON_TYPE,
    body: JSON.stringify({
      workspace: DEMO_WORKSPACE,
      uri,
      label: "Retention",
      ...(retention === undefined ? {} : { history: { retention } }),
    }),
  });
  assert.equal(response.status, 201, await response.text());
  return uri;
}

function itemUri(label: string): string {
  return `https://data.example.org/id/retention/${label}-${crypto.randomUUID()}`;
}

/**
 * Writes the item `times` times, each with another title: a create (PUT) when `create`,
 * then updates (POST).
 */
async function write(
  service: TestService,
  collection: string,
  uri: string,
  times: number,
  create = true,
) {
  for (let n = 1; n <= times; n++) {
    const response = await service.fetch(`/api/item?${itemQuery(uri, collection)}`, {
      method: n === 1 && create ? "PUT" : "POST",
      headers: { "Content-Type": "application/n-triples" },
      body: `<${uri}> <${TITLE}> "title ${n} ${crypto.randomUUID()}" .\n`,
    });
    assert.ok([201, 204].includes(response.status), await response.text());
  }
}

async function remove(service: TestService, collection: string, uri: string) {
  const response = await service.fetch(`/api/item?${itemQuery(uri, collection)}`, {
    method: "DELETE",
  });
  assert.equal(response.status, 204, await response.text());
}

/** The item's version numbers and operations, newest first. */
async function versions(service: TestService, collection: string, uri: string) {
  const response = await service.fetch(
    `/api/item/history?${itemQuery(uri, collection)}&limit=1000`,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return (JSON.parse(text).versions as { version: number; operation: string }[])
    .map((v) => `${v.version}:${v.operation}`);
}

/** Prunes (one collection, or every one) and waits for the job. */
async function prune(service: TestService, collection?: string): Promise<PruneJob> {
  const query = collection === undefined ? "" : `collection=${encodeURIComponent(collection)}&`;
  const response = await service.fetch(`/api/admin/history/prune?${query}wait=true`, {
    method: "POST",
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get("location") ?? "", /^\/api\/admin\/history\/prune\/jobs\//);
  return JSON.parse(text);
}

async function prunedMetric(service: TestService): Promise<number> {
  const metrics = await (await service.fetch("/metrics")).text();
  const value = metrics.match(/^rcs_item_versions_pruned_total (\d+)$/m)?.[1];
  assert.ok(value !== undefined, "rcs_item_versions_pruned_total is exposed");
  return Number(value);
}

for (const backend of HISTORY_BACKENDS) {
  retentionTest(
    backend,
    "last:2 keeps each item's two newest versions, never fewer than its newest; a deleted item keeps its delete and answers 410; other collections keep all",
    async (service) => {
      const kept = await makeCollection(service, "last:2");
      const many = itemUri("many");
      const one = itemUri("one");
      const deleted = itemUri("deleted");
      const elsewhere = itemUri("elsewhere");
      await write(service, kept, many, 5);
      await write(service, kept, one, 1);
      await write(service, kept, deleted, 3);
      await remove(service, kept, deleted);
      await write(service, DEMO_COLLECTION, elsewhere, 3);
      assert.equal(await prunedMetric(service), 0);

      const job = await prune(service); // every collection
      assert.equal(job.state, "succeeded", JSON.stringify(job));
      assert.equal(job.collection, null);
      assert.equal(job.total, 3);
      assert.equal(job.processed, 3);
      assert.equal(job.pruned, 3 + 0 + 2);
      const ofKept = job.collections.find((entry) => entry.collection === kept)!;
      assert.deepEqual(
        { retention: ofKept.retention, items: ofKept.items, pruned: ofKept.pruned },
        { retention: "last:2", items: 3, pruned: 5 },
      );
      const ofDemo = job.collections.find((entry) => entry.collection === DEMO_COLLECTION)!;
      assert.deepEqual({ retention: ofDemo.retention, pruned: ofDemo.pruned }, {
        retention: "all",
        pruned: 0,
      });

      assert.deepEqual(await versions(service, kept, many), ["5:update", "4:update"]);
      assert.deepEqual(await versions(service, kept, one), ["1:create"]);
      assert.deepEqual(await versions(service, kept, deleted), ["4:delete", "3:update"]);
      assert.deepEqual(await versions(service, DEMO_COLLECTION, elsewhere), [
        "3:update",
        "2:update",
        "1:create",
      ]);
      // The deleted item is still deleted, not unknown; a pruned version is gone.
      await expectProblem(
        await service.fetch(`/api/item?${itemQuery(deleted, kept)}`),
        410,
        "item-deleted",
      );
      await expectProblem(
        await service.fetch(`/api/item?${itemQuery(many, kept)}&version=2`),
        404,
        "version-not-found",
      );
      // Numbering goes on from the newest, never reusing a pruned number.
      await write(service, kept, many, 1, false);
      assert.equal((await versions(service, kept, many))[0], "6:update");
      assert.equal(await prunedMetric(service), 5);

      // A second pass finds nothing more to remove; the job is listed and read back.
      const again = await prune(service, kept);
      assert.equal(again.pruned, 1); // version 4 of `many`, now third newest
      assert.equal(again.collection, kept);
      assert.deepEqual(again.collections.map((entry) => entry.collection), [kept]);
      const listed = await (await service.fetch("/api/admin/history/prune/jobs")).json();
      assert.deepEqual(listed.slice(0, 2).map((j: PruneJob) => j.id), [again.id, job.id]);
      const read = await (await service.fetch(`/api/admin/history/prune/jobs/${job.id}`)).json();
      assert.equal(read.pruned, 5);
      await expectProblem(
        await service.fetch("/api/admin/history/prune/jobs/no-such-job"),
        404,
        "job-not-found",
      );
    },
  );

  retentionTest(
    backend,
    "a duration keeps the versions written within it, and an item's newest however old",
    async (service) => {
      const collection = await makeCollection(service, "PT2S");
      const old = itemUri("old");
      const mixed = itemUri("mixed");
      await write(service, collection, old, 2);
      await write(service, collection, mixed, 2);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await write(service, collection, mixed, 1, false);
      const fresh = itemUri("fresh");
      await write(service, collection, fresh, 2);

      const job = await prune(service, collection);
      assert.equal(job.state, "succeeded");
      assert.equal(job.pruned, 1 + 2);
      assert.deepEqual(await versions(service, collection, old), ["2:update"]);
      assert.deepEqual(await versions(service, collection, mixed), ["3:update"]);
      assert.deepEqual(await versions(service, collection, fresh), ["2:update", "1:create"]);
      assert.equal(await prunedMetric(service), 3);
    },
  );

  retentionTest(
    backend,
    "service.history.retention applies to collections without their own; the job runs in the background, reports progress and ends",
    async (service) => {
      // 600 items of 2 versions each: several steps (the first of 100 items, then sized to time).
      const items = Array.from({ length: 600 }, (_, i) => `https://data.example.org/id/bulk/${i}`);
      for (const round of [1, 2]) {
        const trig = items.map((uri) => `<${uri}> { <${uri}> <${TITLE}> "round ${round}" . }`)
          .join("\n");
        const response = await service.fetch(
          `/api/admin/import?collection=${encodeURIComponent(DEMO_COLLECTION)}` +
            "&mode=upsert&wait=true",
          { method: "POST", headers: { "Content-Type": "application/trig" }, body: trig },
        );
        assert.equal(response.status, 200, await response.text());
      }
      const own = await makeCollection(service, "all");
      await write(service, own, itemUri("own"), 3);

      const started = await service.fetch("/api/admin/history/prune", { method: "POST" });
      assert.equal(started.status, 202, await started.clone().text());
      const location = started.headers.get("location")!;
      const seen: PruneJob[] = [await started.json()];
      while (seen.at(-1)!.state === "running") {
        const response = await service.fetch(location);
        assert.equal(response.status, 200);
        seen.push(await response.json());
      }
      const done = seen.at(-1)!;
      assert.equal(done.state, "succeeded", JSON.stringify(done));
      assert.equal(done.total, 600);
      assert.equal(done.processed, 600);
      assert.equal(done.pruned, 600);
      for (let i = 1; i < seen.length; i++) {
        assert.ok(seen[i].processed >= seen[i - 1].processed, "progress never goes back");
      }
      const ofOwn = done.collections.find((entry) => entry.collection === own)!;
      assert.deepEqual({ retention: ofOwn.retention, pruned: ofOwn.pruned }, {
        retention: "all",
        pruned: 0,
      });
      assert.deepEqual(await versions(service, DEMO_COLLECTION, items[7]), ["2:import"]);
      assert.equal(await prunedMetric(service), 600);
    },
    { SERVICE_HISTORY_RETENTION: "last:1" },
  );

  retentionTest(
    backend,
    "service.history.pruneIntervalMs starts a prune of every collection on its own",
    async (service) => {
      const uri = itemUri("scheduled");
      await write(service, DEMO_COLLECTION, uri, 3);
      const deadline = Date.now() + 10_000;
      let left = await versions(service, DEMO_COLLECTION, uri);
      while (left.length > 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        left = await versions(service, DEMO_COLLECTION, uri);
      }
      assert.deepEqual(left, ["3:update"]);
      const jobs: PruneJob[] = await (await service.fetch("/api/admin/history/prune/jobs")).json();
      assert.ok(jobs.length >= 1);
      assert.equal(jobs.at(-1)!.collection, null);
      assert.ok(await prunedMetric(service) >= 2);
    },
    { SERVICE_HISTORY_RETENTION: "last:1", SERVICE_HISTORY_PRUNE_INTERVAL_MS: "1000" },
  );

  retentionTest(
    backend,
    "no scheduled job starts while every retention is all",
    async (service) => {
      await write(service, DEMO_COLLECTION, itemUri("kept"), 2);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const jobs = await (await service.fetch("/api/admin/history/prune/jobs")).json();
      assert.deepEqual(jobs, []);
    },
    { SERVICE_HISTORY_PRUNE_INTERVAL_MS: "500" },
  );

  retentionTest(backend, "a bad retention is refused, naming the field", async (service) => {
    for (const retention of ["last:0", "90 days", "P", "PT", "P0D", "last:x", ""]) {
      const response = await service.fetch("/api/admin/collections", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({
          workspace: DEMO_WORKSPACE,
          uri: `https://data.example.org/collection/bad-${crypto.randomUUID()}`,
          history: { retention },
        }),
      });
      const problem = await expectProblem(response, 400, "invalid-settings");
      const paths = (problem.errors as { path: string }[]).map((error) => error.path);
      assert.deepEqual(paths, ["/history/retention"], `${retention}: ${JSON.stringify(problem)}`);
    }
    const unknownKey = await service.fetch("/api/admin/collections", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({
        workspace: DEMO_WORKSPACE,
        uri: `https://data.example.org/collection/bad-${crypto.randomUUID()}`,
        history: { keep: 3 },
      }),
    });
    const problem = await expectProblem(unknownKey, 400, "invalid-settings");
    assert.match(JSON.stringify(problem.errors), /\/history/);
    // The route's own parameters.
    await expectProblem(
      await service.fetch("/api/admin/history/prune?collection=not-an-iri", { method: "POST" }),
      400,
      "invalid-iri",
    );
    await expectProblem(
      await service.fetch(
        `/api/admin/history/prune?collection=${encodeURIComponent("https://nowhere.example/c")}`,
        { method: "POST" },
      ),
      404,
      "collection-not-found",
    );
  });
}

// Export as of a time reads the history every store keeps.
for (const backend of storeBackends()) {
  retentionTest(
    backend,
    "an export asOf a time between two imports equals the first import's export",
    async (service) => {
      const collection = encodeURIComponent(DEMO_COLLECTION);
      const base = "https://data.example.org/id/asof";
      const first =
        `<${base}/1> { <${base}/1> <${TITLE}> "one" ; <${TITLE}> _:b . _:b <${TITLE}> "node" . }
<${base}/2> { <${base}/2> <${TITLE}> "two" . }
<${base}/3> { <${base}/3> <${TITLE}> "three" . }
`;
      const second = `<${base}/1> { <${base}/1> <${TITLE}> "one, changed" . }
<${base}/2> { <${base}/2> <${TITLE}> "two" , "two again" . }
<${base}/4> { <${base}/4> <${TITLE}> "four" . }
`;
      const importTrig = async (body: string) => {
        const response = await service.fetch(
          `/api/admin/import?collection=${collection}&mode=upsert&wait=true`,
          { method: "POST", headers: { "Content-Type": "application/trig" }, body },
        );
        assert.equal(response.status, 200, await response.text());
      };
      const exportAt = async (asOf?: string, accept = "application/n-quads") => {
        const query = asOf === undefined ? "" : `&asOf=${encodeURIComponent(asOf)}`;
        const response = await service.fetch(`/api/admin/export?collection=${collection}${query}`, {
          headers: { Accept: accept },
        });
        const text = await response.text();
        assert.equal(response.status, 200, text);
        return text;
      };
      const canonical = async (text: string, format = "N-Quads") =>
        await canonicalize(new Parser({ format }).parse(text));
      const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

      const beforeAll = new Date().toISOString();
      await pause();
      await importTrig(first);
      const firstExport = await exportAt();
      await pause();
      const between = new Date().toISOString();
      await pause();
      await importTrig(second);
      await remove(service, DEMO_COLLECTION, `${base}/3`);
      const secondExport = await exportAt();
      assert.notEqual(await canonical(secondExport), await canonical(firstExport));

      // As of the time between: the first import, the item deleted since included.
      const asOfBetween = await exportAt(between);
      assert.equal(await canonical(asOfBetween), await canonical(firstExport));
      assert.equal(
        await canonical(await exportAt(between, "application/trig"), "TriG"),
        await canonical(firstExport),
      );
      // As of now: what the collection holds now (no deleted item).
      assert.equal(
        await canonical(await exportAt(new Date().toISOString())),
        await canonical(secondExport),
      );
      // Before anything was written: nothing. An offset names the same instant as Z.
      assert.equal(await exportAt(beforeAll), "");
      const offset = new Date(Date.parse(between) + 2 * 3600_000).toISOString()
        .replace("Z", "+02:00");
      assert.equal(await canonical(await exportAt(offset)), await canonical(firstExport));

      for (const bad of ["yesterday", "2026-02-30T00:00:00Z", "2026-11-29T10:00:00", "1"]) {
        const problem = await expectProblem(
          await service.fetch(
            `/api/admin/export?collection=${collection}&asOf=${encodeURIComponent(bad)}`,
          ),
          400,
          "invalid-parameter",
        );
        assert.deepEqual((problem.errors as { path: string }[]).map((e) => e.path), ["asOf"]);
      }
    },
  );
}
