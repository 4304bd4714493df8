/**
 * Fault suite, triple store down (SPARQL backend against a real Fuseki).
 *
 * - The network to Fuseki is cut by a loopback proxy while creates, updates and deletes
 *   are in flight and after: every request answers 503 `store-unavailable` (never 500; a
 *   write whose update was sent before the cut: 503 `write-outcome-unknown`),
 *   reads too; once the network is back every item holds either its whole previous graph or
 *   its whole new graph, its history has the write's version exactly when the write was
 *   applied, new writes succeed and the search index matches the store.
 * - A Fuseki of our own on a TDB2 dataset is SIGKILLed during updates and started again:
 *   the same promises, and acknowledged writes survive.
 * - An update held on its way to Fuseki while the outbox worker looks at the item: the
 *   index still ends up with the written state.
 *
 * Needs SERVICE_SPARQL_QUERY_URL, …_UPDATE_URL and …_GSP_URL; the shared Fuseki is never
 * stopped (the proxy cuts only our own connections to it).
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  type TestService,
} from "../support/service.ts";
import { expectProblem, expectStoreWriteFailure } from "../support/problems.ts";
import { LoopbackProxy } from "../support/loopback_proxy.ts";
import { freePort } from "../support/ports.ts";
import {
  FusekiInstance,
  SPARQL_SUITE_SKIPPED,
  type SparqlEndpoints,
  sparqlEndpointsFromEnv,
} from "../support/fuseki.ts";
import {
  assertWhole,
  hashOf,
  readServedItem,
  searchWord,
  uniqueWord,
  versionBody,
} from "../support/item_versions.ts";
import { whenReachedOrSettled } from "../support/workers.ts";

const endpoints = sparqlEndpointsFromEnv();
if (!endpoints) console.log(SPARQL_SUITE_SKIPPED);

const TRIPLES = 150;
const WRITERS = 6;

function sparqlEnv(target: SparqlEndpoints): Record<string, string> {
  return {
    SERVICE_STORE_BACKEND: "sparql",
    SERVICE_SPARQL_QUERY_URL: target.queryUrl,
    SERVICE_SPARQL_UPDATE_URL: target.updateUrl,
    SERVICE_SPARQL_GSP_URL: target.graphStoreUrl,
  };
}

/** The endpoints, reached through `proxy` (all three share Fuseki's host and port). */
function through(proxy: LoopbackProxy, target: SparqlEndpoints): SparqlEndpoints {
  return {
    queryUrl: proxy.rewrite(target.queryUrl),
    updateUrl: proxy.rewrite(target.updateUrl),
    graphStoreUrl: proxy.rewrite(target.graphStoreUrl),
  };
}

function itemUri(run: string, n: number): string {
  return `https://data.example.org/id/fault/${run}/item-${n}`;
}

type Method = "PUT" | "POST" | "DELETE";

async function send(
  service: TestService,
  method: Method,
  uri: string,
  body?: string,
  ifMatch?: string,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["Content-Type"] = "application/n-triples";
  if (ifMatch !== undefined) headers["If-Match"] = `"${ifMatch}"`;
  const query = method === "PUT"
    ? `collection=${encodeURIComponent(DEMO_COLLECTION)}`
    : itemQuery(uri);
  return await service.fetch(`/api/item?${query}`, { method, headers, body });
}

/** What an item may hold: a version's graph, or nothing. */
type State = { version: number } | "absent";

/** One write of the storm and the states its item may be in afterwards. */
interface Operation {
  uri: string;
  run(): Promise<Response>;
  success: number;
  before: State;
  after: State;
  /** Filled in when it ran. */
  outcome?: "applied" | "unavailable";
  startedAfterCut?: boolean;
}

/**
 * Runs `operations` with {@link WRITERS} clients; calls `cut` once `cutAfter` writes were
 * acknowledged. Every answer must be the write's success status, 503 `store-unavailable` or
 * 503 `write-outcome-unknown`.
 * Returns how many writes were in flight when the cut came.
 */
async function storm(
  operations: Operation[],
  cutAfter: number,
  cut: () => Promise<void>,
): Promise<number> {
  let next = 0;
  let acknowledged = 0;
  let inFlight = 0;
  let cutDone = false;
  const client = async () => {
    while (next < operations.length) {
      const operation = operations[next++];
      operation.startedAfterCut = cutDone;
      inFlight++;
      const response = await operation.run();
      inFlight--;
      if (response.status === operation.success) {
        await response.body?.cancel();
        operation.outcome = "applied";
        acknowledged++;
      } else {
        // Sent before the cut: outcome unknown; refused after it: unavailable.
        await expectStoreWriteFailure(response);
        operation.outcome = "unavailable";
      }
    }
  };
  const clients = Array.from({ length: WRITERS }, client);
  await whenReachedOrSettled(() => acknowledged >= cutAfter, clients);
  const inFlightAtCut = inFlight;
  await cut();
  cutDone = true;
  await Promise.all(clients);
  return inFlightAtCut;
}

/**
 * Waits until `/ready` sees the store again: after repeated failures it was marked down
 * (service.failFast), and requests fail at once until its probe finds it back.
 */
async function storeAnswersAgain(service: TestService): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (true) {
    const response = await service.fetch("/ready");
    const body = await response.json() as { checks: { store: { ok: boolean } } };
    if (body.checks.store.ok) return;
    assert.ok(Date.now() < deadline, "the store was not seen back within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Asserts the item is in one of the states the write allows, whole. */
async function assertOneOf(
  service: TestService,
  operation: Operation,
  hashes: Map<string, string>,
): Promise<State> {
  const allowed = operation.outcome === "applied"
    ? [operation.after]
    : [operation.before, operation.after];
  const served = await readServedItem(service.url, operation.uri);
  const found: State | undefined = served === undefined
    ? "absent"
    : allowed.find((state) =>
      state !== "absent" && hashes.get(`${operation.uri} ${state.version}`) === served.hash
    );
  assert.ok(
    found !== undefined && allowed.includes(found),
    `${operation.uri} (${operation.outcome}): holds ${served?.hash ?? "nothing"}, ` +
      `allowed ${JSON.stringify(allowed)}`,
  );
  if (served) await assertWhole(service.url, operation.uri, served, TRIPLES);
  return found;
}

/** Hashes of every version the operations may have left, keyed `uri version`. */
async function versionHashes(
  service: TestService,
  operations: Operation[],
  word: string,
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  await Promise.all(
    operations.flatMap(({ uri, before, after }) =>
      [before, after].map(async (state) => {
        if (state === "absent") return;
        const body = versionBody(uri, state.version, word, TRIPLES);
        hashes.set(`${uri} ${state.version}`, await hashOf(service.url, body));
      })
    ),
  );
  return hashes;
}

/** Reads, writes and /ready while the store cannot be reached: all 503, never 500. */
async function assertUnavailable(service: TestService, existing: string, word: string) {
  const read = await service.fetch(`/api/item?${itemQuery(existing)}`);
  await expectProblem(read, 503, "store-unavailable");
  const download = await service.fetch(`/api/item.ttl?${itemQuery(existing)}`);
  await expectProblem(download, 503, "store-unavailable");
  const fresh = `${existing}-while-down`;
  await expectProblem(
    await send(service, "PUT", fresh, versionBody(fresh, 0, word, TRIPLES)),
    503,
    "store-unavailable",
  );
  await expectProblem(
    await send(service, "POST", existing, versionBody(existing, 9, word, TRIPLES)),
    503,
    "store-unavailable",
  );
  await expectProblem(await send(service, "DELETE", existing), 503, "store-unavailable");
  const ready = await service.fetch("/ready");
  const readiness = await ready.json();
  assert.equal(ready.status, 503);
  assert.equal(readiness.checks.store.ok, false);
}

Deno.test({
  name: "[faults/store-down/sparql] Fuseki cut off during writes: 503s, no partial graph, recovery",
  ignore: !endpoints,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const proxy = LoopbackProxy.to(endpoints!.queryUrl);
    proxy.open();
    const service = await startTestService({ env: sparqlEnv(through(proxy, endpoints!)) });
    const run = crypto.randomUUID();
    const word = uniqueWord();
    try {
      // Items 0–29 exist; the storm updates 0–9 and 20–29 (the latter with If-Match),
      // deletes 10–19 and creates 30–39, interleaved.
      const etags = new Map<string, string>();
      await Promise.all(Array.from({ length: 30 }, async (_, n) => {
        const uri = itemUri(run, n);
        const response = await send(service, "PUT", uri, versionBody(uri, 0, word, TRIPLES));
        assert.equal(response.status, 201, await response.text());
        etags.set(uri, response.headers.get("etag")!.replaceAll('"', ""));
      }));
      const operations: Operation[] = [];
      for (let n = 0; n < 40; n++) {
        const uri = itemUri(run, n);
        const v1 = versionBody(uri, 1, word, TRIPLES);
        const v0 = versionBody(uri, 0, word, TRIPLES);
        if (n < 10) {
          operations.push({
            uri,
            run: () => send(service, "POST", uri, v1),
            success: 204,
            before: { version: 0 },
            after: { version: 1 },
          });
        } else if (n < 20) {
          operations.push({
            uri,
            run: () => send(service, "DELETE", uri),
            success: 204,
            before: { version: 0 },
            after: "absent",
          });
        } else if (n < 30) {
          operations.push({
            uri,
            run: () => send(service, "POST", uri, v1, etags.get(uri)),
            success: 204,
            before: { version: 0 },
            after: { version: 1 },
          });
        } else {
          operations.push({
            uri,
            run: () => send(service, "PUT", uri, v0),
            success: 201,
            before: "absent",
            after: { version: 0 },
          });
        }
      }
      // Interleave the kinds: 0, 10, 20, 30, 1, 11, …
      const interleaved = Array.from({ length: 40 }, (_, k) => operations[(k % 4) * 10 + (k >> 2)]);

      const inFlight = await storm(interleaved, 12, () => Promise.resolve(proxy.close()));
      const applied = operations.filter((operation) => operation.outcome === "applied").length;
      console.log(`cut with ${inFlight} writes in flight; ${applied} of 40 writes applied`);
      assert.ok(inFlight > 0, "writes were in flight at the cut");
      assert.ok(applied < 40, "writes failed during the outage");
      for (const operation of operations) {
        if (operation.startedAfterCut) assert.equal(operation.outcome, "unavailable");
      }
      await assertUnavailable(service, itemUri(run, 0), word);

      proxy.open();
      await storeAnswersAgain(service);
      const hashes = await versionHashes(service, operations, word);
      const present = new Map<string, string>();
      const states = new Map<string, State>();
      await Promise.all(operations.map(async (operation) => {
        const state = await assertOneOf(service, operation, hashes);
        states.set(operation.uri, state);
        if (state !== "absent") {
          present.set(operation.uri, hashes.get(`${operation.uri} ${state.version}`)!);
        }
      }));
      // Each write has its version exactly when it was applied, whatever its answer was: the
      // version is written by the write's own request (src/store_sparql/sparql_item_history.ts).
      await Promise.all(operations.map(async (operation, n) => {
        const state = states.get(operation.uri)!;
        const applied = JSON.stringify(state) === JSON.stringify(operation.after);
        const kind = n < 10 || n >= 20 && n < 30 ? "update" : n < 20 ? "delete" : "create";
        const expected = kind === "create"
          ? (applied ? ["create"] : [])
          : applied
          ? [kind, "create"]
          : ["create"];
        const response = await service.fetch(`/api/item/history?${itemQuery(operation.uri)}`);
        const text = await response.text();
        const versions = response.status === 404 ? [] : JSON.parse(text).versions as {
          operation: string;
          hash: string | null;
        }[];
        assert.deepEqual(versions.map((v) => v.operation), expected, `${operation.uri}: ${text}`);
        if (state !== "absent") {
          assert.equal(versions[0].hash, hashes.get(`${operation.uri} ${state.version}`));
        }
      }));
      const ready = await service.fetch("/ready");
      assert.equal(ready.status, 200, await ready.text());

      // New writes succeed: every surviving item once more, and a new item.
      await Promise.all([...present].map(async ([uri, hash]) => {
        const response = await send(service, "POST", uri, versionBody(uri, 2, word, TRIPLES), hash);
        assert.equal(response.status, 204, await response.text());
        present.set(uri, response.headers.get("etag")!.replaceAll('"', ""));
      }));
      const after = itemUri(run, 100);
      const created = await send(service, "PUT", after, versionBody(after, 0, word, TRIPLES));
      assert.equal(created.status, 201, await created.text());
      present.set(after, created.headers.get("etag")!.replaceAll('"', ""));

      // The index caught up with the store: each item once, at its current version.
      await service.services.deps.indexOutbox.drain(60_000);
      const hits = await searchWord(service.url, word);
      assert.deepEqual(hits.map((hit) => hit.uri).sort(), [...present.keys()].sort());
      for (const hit of hits) assert.equal(hit.document.hash, present.get(hit.uri), hit.uri);
    } finally {
      await service.close();
      proxy.close();
    }
  },
});

Deno.test({
  name: "[faults/store-down/sparql] a TDB2 Fuseki SIGKILLed during updates: 503s, then recovery",
  ignore: !endpoints,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-faults-tdb2-" });
    const fuseki = new FusekiInstance({
      port: freePort(),
      runDir: `${dir}/run`,
      tdb2Dir: `${dir}/tdb2`,
    });
    let service: TestService | undefined;
    try {
      await fuseki.start();
      service = await startTestService({ env: sparqlEnv(fuseki.endpoints) });
      const running = service;
      const word = uniqueWord();
      const run = crypto.randomUUID();
      const uris = Array.from({ length: WRITERS }, (_, n) => itemUri(run, n));
      for (const uri of uris) {
        const response = await send(running, "PUT", uri, versionBody(uri, 0, word, TRIPLES));
        assert.equal(response.status, 201, await response.text());
      }

      // One writer per item, updating it to version 1, 2, … until its first failure.
      const acknowledged = new Map(uris.map((uri) => [uri, 0]));
      const attempted = new Map(uris.map((uri) => [uri, 0]));
      let killing = false;
      const writer = async (uri: string) => {
        for (let version = 1;; version++) {
          attempted.set(uri, version);
          const response = await send(
            running,
            "POST",
            uri,
            versionBody(uri, version, word, TRIPLES),
          );
          if (response.status !== 204) {
            await expectStoreWriteFailure(response);
            assert.ok(killing, `${uri} version ${version} failed before the kill`);
            return;
          }
          await response.body?.cancel();
          acknowledged.set(uri, version);
        }
      };
      const writers = uris.map(writer);
      const total = () => [...acknowledged.values()].reduce((a, b) => a + b, 0);
      await whenReachedOrSettled(() => total() >= 20, writers);
      killing = true;
      await fuseki.kill();
      await Promise.all(writers);
      console.log(`acknowledged before the kill: versions ${[...acknowledged.values()]}`);
      await assertUnavailable(running, uris[0], word);

      await fuseki.start();
      await storeAnswersAgain(running);
      for (const uri of uris) {
        const served = await readServedItem(running.url, uri);
        assert.ok(served, `${uri} survived`);
        const last = acknowledged.get(uri)!;
        const inFlight = attempted.get(uri)!;
        const candidates = [last, inFlight].map(async (version) => ({
          version,
          hash: await hashOf(running.url, versionBody(uri, version, word, TRIPLES)),
        }));
        const match = (await Promise.all(candidates)).find(({ hash }) => hash === served.hash);
        assert.ok(match, `${uri}: neither version ${last} (acknowledged) nor ${inFlight}`);
        await assertWhole(running.url, uri, served, TRIPLES);
        const response = await send(
          running,
          "POST",
          uri,
          versionBody(uri, 1000, word, TRIPLES),
          served.hash,
        );
        assert.equal(response.status, 204, await response.text());
      }
      const ready = await running.fetch("/ready");
      assert.equal(ready.status, 200, await ready.text());
    } finally {
      await service?.close();
      await fuseki.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "[faults/store-down/sparql] a write held on its way to the store is indexed once it lands",
  ignore: !endpoints,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // Only updates pass the proxy: the outbox worker's reads reach Fuseki directly, so it
    // looks at the items while their writes are held.
    const proxy = LoopbackProxy.to(endpoints!.updateUrl);
    proxy.open();
    const service = await startTestService({
      env: sparqlEnv({ ...endpoints!, updateUrl: proxy.rewrite(endpoints!.updateUrl) }),
    });
    const outbox = service.services.deps.indexOutbox;
    const run = crypto.randomUUID();
    const word = uniqueWord();
    const existing = itemUri(run, 0);
    const fresh = itemUri(run, 1);
    try {
      const seeded = await send(service, "PUT", existing, versionBody(existing, 0, word, TRIPLES));
      assert.equal(seeded.status, 201, await seeded.text());
      await outbox.drain();

      await outbox.stop();
      proxy.hold();
      const update = send(service, "POST", existing, versionBody(existing, 1, word, TRIPLES));
      const create = send(service, "PUT", fresh, versionBody(fresh, 0, word, TRIPLES));
      // The writes reach the proxy and wait there. Their outbox entries travel in the held
      // updates, so the worker finds nothing of them yet and leaves the index as it was.
      await new Promise((resolve) => setTimeout(resolve, 300));
      outbox.start();
      await outbox.drain();
      proxy.release();
      const [updated, created] = await Promise.all([update, create]);
      assert.equal(updated.status, 204, await updated.text());
      assert.equal(created.status, 201, await created.text());

      await outbox.drain();
      const hits = await searchWord(service.url, word);
      assert.deepEqual(hits.map((hit) => hit.uri).sort(), [existing, fresh].sort());
      const hashes = new Map(hits.map((hit) => [hit.uri, hit.document.hash]));
      assert.equal(hashes.get(existing), updated.headers.get("etag")!.replaceAll('"', ""));
      assert.equal(hashes.get(fresh), created.headers.get("etag")!.replaceAll('"', ""));
    } finally {
      proxy.release();
      await service.close();
      proxy.close();
    }
  },
});
