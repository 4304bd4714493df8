/**
 * A read is one version: under a storm of conditional writes, every body that `GET
 * /api/item` and the download routes serve hashes to the ETag sent with it, on both stores,
 * with the item cache on (the default) and off (every read reaches the store).
 *
 * Writers keep replacing their items (`POST` with `If-Match`, new literal values each time)
 * while readers fetch them as N-Triples and as downloads. The bodies are hashed afterwards
 * with the service's own canonical hash, so hashing does not slow the readers down. The
 * test also checks that the writers made many versions while the reads ran and that the
 * readers saw many of them: otherwise it could not have failed.
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { CachingTripleStore } from "../../src/store/caching_triple_store.ts";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  type StoreBackend,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";

const ITEMS = 4;
const TRIPLES = 40;
/** Reads per run; the run also ends after {@link MAX_READ_MS}. */
const READS = 400;
// Long enough for a store that writes slowly under reads: Virtuoso, which also writes each
// version's history, made 48 versions in 20 s on two cores busy with the rest of the suite.
// The reads end as soon as there were enough versions; this only bounds a slow run.
const MAX_READ_MS = 45_000;
const READERS = 6;
/** Fewer versions than this during the reads, and the test proves nothing. */
const MIN_VERSIONS = 50;

/** The read routes, with the n3 parser format of their bodies. */
const ROUTES: { path: string; accept?: string; format: string }[] = [
  { path: "/api/item", accept: "application/n-triples", format: "N-Triples" },
  { path: "/api/item.nt", format: "N-Triples" },
  { path: "/api/item.ttl", format: "Turtle" },
  { path: "/api/item.n3", format: "N3" },
];

const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
/** The shipped configuration with the item cache turned off. */
const WITHOUT_CACHE = SHIPPED.replace(/^ {2}search:$/m, "    cache:\n      maxBytes: 0\n$&");

/**
 * Version `version` of an item: plain string literals only (a store may rewrite typed ones)
 * on a few subjects, so grouping by subject is exercised too.
 */
function versionBody(uri: string, version: number): string {
  const lines = [`<${uri}> <http://purl.org/dc/terms/title> "version ${version}" .`];
  for (let i = 1; i < TRIPLES; i++) {
    const subject = i % 4 === 0 ? `${uri}#part-${i % 3}` : uri;
    lines.push(`<${subject}> <https://example.org/read/p${i}> "v${version} value ${i}" .`);
  }
  return lines.join("\n") + "\n";
}

function unquote(etag: string | null): string {
  return (etag ?? "").replace(/^W\//, "").replaceAll('"', "");
}

/** One served read, hashed after the storm. */
interface Served {
  route: string;
  format: string;
  etag: string;
  body: string;
}

async function createItem(service: TestService, uri: string): Promise<string> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    {
      method: "PUT",
      headers: { "Content-Type": "application/n-triples" },
      body: versionBody(uri, 0),
    },
  );
  assert.equal(response.status, 201, await response.text());
  return unquote(response.headers.get("etag"));
}

/**
 * Replaces the item, version after version, until `stop`; returns when each was acknowledged
 * (and adds it to `progress`, shared by the writers, as it happens).
 */
async function writer(
  service: TestService,
  uri: string,
  firstEtag: string,
  stop: { now: boolean },
  progress: number[],
): Promise<number[]> {
  const acknowledgedAt: number[] = [];
  let etag = firstEtag;
  for (let version = 1; !stop.now; version++) {
    const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      method: "POST",
      headers: { "Content-Type": "application/n-triples", "If-Match": `"${etag}"` },
      body: versionBody(uri, version),
    });
    const text = await response.text();
    assert.equal(response.status, 204, `write ${version} of ${uri}: ${text}`);
    etag = unquote(response.headers.get("etag"));
    acknowledgedAt.push(performance.now());
    progress.push(performance.now());
  }
  return acknowledgedAt;
}

/**
 * Reads items round-robin over every route until `reads` are taken and enough versions were
 * written meanwhile (a loaded machine writes fewer per read), or time is up.
 */
async function reader(
  service: TestService,
  uris: string[],
  offset: number,
  budget: { left: number; until: number; enoughVersions(): boolean },
): Promise<Served[]> {
  const served: Served[] = [];
  const more = () => budget.left > 0 || !budget.enoughVersions();
  for (let n = offset; more() && performance.now() < budget.until; n++) {
    budget.left--;
    const route = ROUTES[n % ROUTES.length];
    const uri = uris[Math.floor(n / ROUTES.length) % uris.length];
    const response = await service.fetch(`${route.path}?${itemQuery(uri)}`, {
      headers: route.accept ? { Accept: route.accept } : {},
    });
    const body = await response.text();
    assert.equal(response.status, 200, `GET ${route.path} ${uri}: ${body}`);
    served.push({
      route: route.path,
      format: route.format,
      etag: unquote(response.headers.get("etag")),
      body,
    });
  }
  return served;
}

async function checkReadsMatchEtags(service: TestService): Promise<void> {
  const uris = Array.from({ length: ITEMS }, () => uniqueItemUri("read-consistency"));
  const firstEtags = await Promise.all(uris.map((uri) => createItem(service, uri)));

  const stop = { now: false };
  // Every writer's acknowledgements as they come, so the reads can go on until enough.
  const writerProgress: number[] = [];
  const writers = uris.map((uri, i) => writer(service, uri, firstEtags[i], stop, writerProgress));
  // Writers first get going, so the reads run among writes from the first one.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const readsStarted = performance.now();
  const budget = {
    left: READS,
    until: readsStarted + MAX_READ_MS,
    enoughVersions: () => writerProgress.filter((at) => at >= readsStarted).length >= MIN_VERSIONS,
  };
  let served: Served[];
  try {
    served = (await Promise.all(
      Array.from({ length: READERS }, (_, r) => reader(service, uris, r * 7, budget)),
    )).flat();
  } finally {
    stop.now = true;
  }
  const readsEnded = performance.now();
  const acknowledged = (await Promise.all(writers)).flat();

  const versionsDuringReads =
    acknowledged.filter((at) => at >= readsStarted && at <= readsEnded).length;
  const mismatches: Served[] = [];
  for (const read of served) {
    const quads = new Parser({ format: read.format }).parse(read.body);
    if ((await canonicalHash(quads)).hash !== read.etag) mismatches.push(read);
  }
  const etagsSeen = new Set(served.map((read) => read.etag)).size;
  console.log(
    `${served.length} reads in ${Math.round(readsEnded - readsStarted)} ms, ` +
      `${versionsDuringReads} versions written meanwhile, ${etagsSeen} ETags served, ` +
      `${mismatches.length} bodies not matching their ETag`,
  );
  assert.ok(served.length >= READS / 2, `only ${served.length} reads`);
  assert.ok(versionsDuringReads >= MIN_VERSIONS, `only ${versionsDuringReads} versions`);
  assert.ok(etagsSeen >= MIN_VERSIONS / 2, `the reads saw only ${etagsSeen} versions`);
  assert.deepEqual(
    mismatches.map((read) => `${read.route}: ETag ${read.etag}`),
    [],
    `${mismatches.length} of ${served.length} bodies differ from their ETag`,
  );
}

function readConsistencyTest(backend: StoreBackend, cache: boolean): void {
  Deno.test({
    name: `[read-consistency/${backend.name}] every body served under writes matches its ETag ` +
      `(item cache ${cache ? "on" : "off"})`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({
        yaml: cache ? undefined : WITHOUT_CACHE,
        env: backend.env,
      });
      try {
        assert.equal(service.services.deps.store instanceof CachingTripleStore, cache);
        await checkReadsMatchEtags(service);
      } finally {
        await service.close();
      }
    },
  });
}

for (const backend of storeBackends({ allStores: true })) {
  readConsistencyTest(backend, true);
  readConsistencyTest(backend, false);
}
