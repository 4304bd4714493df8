/**
 * Acceptance suite "Many instances, one truth": three service processes, each with its own
 * data directory, on one Fuseki and one OpenSearch, behave as one service.
 *
 * Every scenario starts a fresh run (tests/support/cluster.ts): its own customer.yml,
 * metadata graph, graph template and index prefix, `service.cluster.leaseMs` 3000, and
 * fresh instances. Writes go over HTTP, spread over the instances; the verdict reads the
 * engines directly: once the index outbox has drained, every item in the store (Fuseki's
 * metadata graph) has exactly one document in the collection's alias (OpenSearch) with its
 * hash (0 lost, 0 extra, 0 stale), and the store holds what the acknowledged writes imply.
 *
 * Each scenario measures everything before it judges (Findings): a failure lists every
 * failed check with its numbers, and every measurement is printed, passing or not.
 *
 * Needs SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL and SERVICE_OPENSEARCH_URL; ignored
 * (with one line saying so) without them. With SERVICE_VIRTUOSO_* set (scripts/virtuoso.sh)
 * every scenario runs on Virtuoso as well (`[cluster/virtuoso/…]`).
 */
import {
  type Answer,
  call,
  Cluster,
  type ClusterEngines,
  clusterEngines,
  clusterLeaseMs,
  type ClusterOptions,
  etagValue,
  Findings,
  hashNTriples,
  indexContents,
  isRunning,
  itemBody,
  type JobView,
  readJob,
  runWriteLoad,
  sleep,
  sparqlSelect,
  startCollectionJob,
  startWarmCluster,
  stateOf,
  verifyCluster,
  versionOf,
  virtuosoClusterEngines,
  waitForJobEnd,
  WriteLedger,
} from "../support/cluster.ts";
import { uniqueWord } from "../support/item_versions.ts";

/**
 * The stores the suite runs on: Fuseki (the suite is ignored, with one line saying so,
 * without it), and Virtuoso too when `scripts/virtuoso.sh` runs.
 */
const stores: { label: string; engines: ClusterEngines | undefined }[] = [
  { label: "", engines: clusterEngines() },
  ...(virtuosoClusterEngines() ? [{ label: "virtuoso/", engines: virtuosoClusterEngines() }] : []),
];

/** Registers one scenario per store on a fresh cluster run; cleaned up whatever happens. */
function clusterTest(
  scenario: string,
  name: string,
  fn: (cluster: Cluster, findings: Findings) => Promise<void>,
  options: ClusterOptions = {},
): void {
  for (const { label, engines } of stores) {
    clusterStoreTest(label, engines, scenario, name, fn, options);
  }
}

function clusterStoreTest(
  label: string,
  engines: ClusterEngines | undefined,
  scenario: string,
  name: string,
  fn: (cluster: Cluster, findings: Findings) => Promise<void>,
  options: ClusterOptions,
): void {
  Deno.test({
    name: `[cluster/${label}${scenario}] ${name}`,
    ignore: engines === undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const cluster = await Cluster.create(engines!, options);
      const findings = new Findings(scenario);
      const started = Date.now();
      try {
        try {
          await fn(cluster, findings);
        } catch (error) {
          // What was measured before still counts: report it with the reason it stopped.
          findings.check(false, `stopped early: ${error instanceof Error ? error.stack : error}`);
        }
        findings.measured(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
        findings.done(cluster);
      } finally {
        await cluster.close();
      }
    },
  });
}

const urls = (cluster: Cluster) => () => cluster.live().map((instance) => instance.url);

/** Creates `count` items through every instance in turn; all must be acknowledged. */
async function seed(
  cluster: Cluster,
  ledger: WriteLedger,
  findings: Findings,
  count: number,
  word: string,
): Promise<void> {
  const started = Date.now();
  const before = ledger.acknowledgedCreates;
  await runWriteLoad(cluster, ledger, {
    targets: urls(cluster),
    writes: count,
    // A cap, not a goal: Virtuoso takes about 17 ms a write, Fuseki a few.
    maxMs: 300_000,
    concurrency: 16,
    label: "seed",
    word,
  });
  findings.measured(
    `seeded ${ledger.acknowledgedCreates - before} of ${count} items in ${Date.now() - started} ms`,
  );
  if (ledger.acknowledgedCreates - before !== count) {
    throw new Error(`seeding failed: ${JSON.stringify(ledger.statuses)} ${ledger.unexpected[0]}`);
  }
}

/** Every live instance's answer for a job, as `name: state` (and the id it answered). */
async function jobStates(cluster: Cluster, id: string): Promise<Record<string, string>> {
  const states: Record<string, string> = {};
  await Promise.all(
    cluster.live().map(async (instance) => {
      const answer = await readJob(instance.url, id);
      const state = stateOf(answer);
      const answeredId = answer.status === 200 ? (answer.body as JobView).id : id;
      states[instance.name] = answeredId === id ? state : `${state} (id ${answeredId})`;
    }),
  );
  return states;
}

/** `is-running` on every live instance. */
async function runningEverywhere(cluster: Cluster): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  await Promise.all(
    cluster.live().map(async (instance) => {
      answers[instance.name] = await isRunning(instance.url);
    }),
  );
  return answers;
}

const MIX = { create: 4, update: 4, delete: 2 };

clusterTest(
  "fresh-deployment",
  "the index does not exist; 100 creates at once over three instances are all indexed",
  async (cluster, findings) => {
    await cluster.startInstances(3);
    const before = await indexContents(cluster);
    if (before.exists || before.runIndices.length > 0) {
      throw new Error(`the run's index exists before any write: ${before.runIndices}`);
    }
    const ledger = new WriteLedger();
    await runWriteLoad(cluster, ledger, {
      targets: urls(cluster),
      writes: 100,
      maxMs: 60_000,
      concurrency: 100,
      label: "fresh",
      word: uniqueWord(),
    });
    findings.check(
      ledger.acknowledgedCreates === 100,
      `${ledger.acknowledgedCreates} of 100 creates acknowledged: ${
        JSON.stringify(ledger.statuses)
      }`,
    );
    findings.report("after 100 concurrent creates", await verifyCluster(cluster, ledger));
  },
);

// On Fuseki the change feed's scenario (tests/cluster/change_feed_cluster_test.ts) runs a longer
// mixed load over three instances, with a kill, and checks store and index the same way.
const virtuoso = stores.find((store) => store.label === "virtuoso/");
if (virtuoso) {
  clusterStoreTest(
    virtuoso.label,
    virtuoso.engines,
    "steady-state",
    "a mixed load of a few hundred writes over three instances leaves store and index equal",
    async (cluster, findings) => {
      const ledger = new WriteLedger();
      await startWarmCluster(cluster, ledger);
      const word = uniqueWord();
      await seed(cluster, ledger, findings, 100, word);
      const load = await runWriteLoad(cluster, ledger, {
        targets: urls(cluster),
        writes: 400,
        maxMs: 60_000,
        concurrency: 12,
        mix: MIX,
        label: "steady",
        word,
      });
      findings.measured(`mixed load: ${load.sent} writes in ${load.ms} ms`);
      findings.report("after the mixed load", await verifyCluster(cluster, ledger));
    },
    {},
  );
}

clusterTest(
  "rebuild",
  "a clear=true rebuild started on one instance while all three take writes",
  async (cluster, findings) => {
    const ledger = new WriteLedger();
    const [a, b] = await startWarmCluster(cluster, ledger);
    const word = uniqueWord();
    await seed(cluster, ledger, findings, 600, word);
    const stop = new AbortController();
    const loading = runWriteLoad(cluster, ledger, {
      targets: urls(cluster),
      writes: 2000,
      maxMs: 60_000,
      concurrency: 9,
      mix: MIX,
      signal: stop.signal,
      label: "rebuild",
      word,
    });
    let job: JobView | undefined;
    try {
      await sleep(300);
      const started = await startCollectionJob(cluster, a.url, true);
      if (!findings.check(started.status === 202, `start on A: HTTP ${started.status}`)) return;
      const id = (started.body as JobView).id;
      // Follow the job on B: it must answer for a job that A runs.
      const seenOnB = new Set<string>();
      const deadline = Date.now() + 60_000;
      let answer = await readJob(b.url, id);
      while (Date.now() < deadline) {
        answer = await readJob(b.url, id);
        seenOnB.add(stateOf(answer));
        if (["succeeded", "failed"].includes(stateOf(answer))) break;
        if (answer.status !== 200) break;
        await sleep(100);
      }
      findings.measured(`job ${id} as B saw it: ${[...seenOnB].join(" → ")}`);
      findings.check(answer.status === 200, `B answers ${stateOf(answer)} for A's job ${id}`);
      if (answer.status === 200) {
        job = answer.body as JobView;
      } else {
        // B does not know the job: wait for its end on A, so that the index can be judged.
        job = (await waitForJobEnd(a.url, id, 60_000)).body as JobView;
      }
      findings.measured(
        `job ${job.state}: total ${job.total}, processed ${job.processed}, indexed ${job.indexed}`,
      );
      findings.check(
        job.state === "succeeded",
        `the rebuild is ${job.state}: ${JSON.stringify(job.errors)}`,
      );
      const states = await jobStates(cluster, id);
      findings.measured(`the job on every instance after its end: ${JSON.stringify(states)}`);
      findings.check(
        Object.values(states).every((state) => state === job!.state),
        `the instances disagree on job ${id}: ${JSON.stringify(states)}`,
      );
      await sleep(500); // writes after the swap, too
    } finally {
      stop.abort();
      const load = await loading;
      findings.measured(`mixed load during the rebuild: ${load.sent} writes in ${load.ms} ms`);
    }
    findings.report("after the rebuild", await verifyCluster(cluster, ledger));
  },
);

clusterTest(
  "kill-during-job",
  "SIGKILL of the instance running a job, with writes in its outbox: the job fails " +
    "everywhere within a lease, nothing is lost",
  async (cluster, findings) => {
    const ledger = new WriteLedger();
    const [a, b] = await startWarmCluster(cluster, ledger);
    const word = uniqueWord();
    // Enough for a job of a few batches (it is killed at its first progress): each seeded
    // item is also a history to audit, and Virtuoso takes tens of ms a write.
    const ITEMS = 1000;
    await seed(cluster, ledger, findings, ITEMS, word);
    const stop = new AbortController();
    const loading = runWriteLoad(cluster, ledger, {
      targets: urls(cluster),
      writes: 5000,
      maxMs: 90_000,
      concurrency: 9,
      mix: MIX,
      signal: stop.signal,
      label: "kill",
      word,
    });
    try {
      await sleep(300);
      const started = await startCollectionJob(cluster, a.url, true);
      if (started.status !== 202) {
        throw new Error(`start on A: HTTP ${started.status} ${JSON.stringify(started.body)}`);
      }
      const id = (started.body as JobView).id;
      let processed = 0;
      let total = 0;
      while (true) {
        const answer = await readJob(a.url, id);
        const job = answer.body as JobView;
        if (answer.status !== 200 || job.state === "succeeded" || job.state === "failed") {
          throw new Error(
            `the job ended (${stateOf(answer)}) before a poll saw it under way: ` +
              "too few items, or the job holds the event loop",
          );
        }
        if (job.processed > 0 && job.processed < job.total) {
          processed = job.processed;
          total = job.total;
          break;
        }
        await sleep(5);
      }
      await cluster.kill(a);
      const killedAt = Date.now();
      findings.measured(`killed A with the job at ${processed} of ${total}`);
      // Every instance must call the job failed within one lease (plus a margin) of the kill.
      const deadline = killedAt + clusterLeaseMs(cluster.engines) + 5_000;
      const replacing = cluster.startInstance();
      let states: Record<string, string> = {};
      const failedAt: Record<string, number> = {};
      while (Date.now() < deadline) {
        states = await jobStates(cluster, id);
        for (const [name, state] of Object.entries(states)) {
          if (state === "failed") failedAt[name] ??= Date.now() - killedAt;
        }
        if (cluster.live().length === 3 && Object.values(states).every((s) => s === "failed")) {
          break;
        }
        await sleep(200);
      }
      const replacement = await replacing;
      if (!(replacement.name in states)) states = await jobStates(cluster, id);
      findings.measured(
        `killed job ${id} as the survivors and the replacement report it ` +
          `${Date.now() - killedAt} ms after the kill: ${JSON.stringify(states)}; ` +
          `failed first seen after (ms): ${JSON.stringify(failedAt)}`,
      );
      findings.check(
        Object.values(states).length === 3 &&
          Object.values(states).every((state) => state === "failed"),
        `within ${clusterLeaseMs(cluster.engines)} + 5000 ms of the kill the job reads ${
          JSON.stringify(states)
        }`,
      );
      const answer = await readJob(replacement.url, id);
      if (answer.status === 200) {
        const job = answer.body as JobView;
        findings.check(
          job.processed < job.total,
          `the killed job reads processed ${job.processed}`,
        );
      }
      await sleep(1500); // a little more writing through the survivors and the replacement
    } finally {
      stop.abort();
      const load = await loading;
      findings.measured(`mixed load: ${load.sent} writes in ${load.ms} ms`);
    }
    const running = await runningEverywhere(cluster);
    findings.measured(`is-running after the kill: ${JSON.stringify(running)}`);
    findings.check(
      Object.values(running).every((value) => value === false),
      `is-running after the kill: ${JSON.stringify(running)}`,
    );
    // The histories are audited once, after the new job (which writes no versions).
    const afterKill = await verifyCluster(cluster, ledger, { history: false });
    findings.report("after the kill, before any new job", afterKill);
    // The sweep that recorded the job failed drops its half-built rebuild index, just after
    // (on Virtuoso under load the check once came first): within a lease, not at once.
    let runIndices = afterKill.runIndices;
    const dropDeadline = Date.now() + clusterLeaseMs(cluster.engines) + 5_000;
    while (runIndices.length !== 1 && Date.now() < dropDeadline) {
      await sleep(250);
      runIndices = (await indexContents(cluster)).runIndices;
    }
    findings.check(
      runIndices.length === 1,
      `indices of the run after the kill: ${runIndices} (the killed rebuild's is dropped)`,
    );

    // A new job can start, and ends well.
    const again = await startCollectionJob(cluster, b.url, false);
    findings.measured(`a new job on B: HTTP ${again.status}`);
    if (findings.check(again.status === 202, `a new job on B: HTTP ${again.status}`)) {
      const newId = (again.body as JobView).id;
      const end = await waitForJobEnd(b.url, newId, 120_000);
      findings.check(stateOf(end) === "succeeded", `the new job is ${stateOf(end)}`);
    }
    findings.report("after a new job", await verifyCluster(cluster, ledger));
  },
  // On every store, though seeding 1,000 items one write at a time takes Virtuoso about a minute.
);

/** One item of the import scenario, as N-Quads (its graph is the item). */
function importQuads(cluster: Cluster, n: number, word: string): string {
  const uri = `<https://data.example.org/id/cluster/${cluster.run}/import-${n}>`;
  return `${uri} <http://purl.org/dc/terms/title> "${word} ${n}" ${uri} .\n`;
}

/** `GET /api/admin/import/jobs/{id}` on one instance. */
function readImport(baseUrl: string, id: string): Promise<Answer> {
  return call(`${baseUrl}/api/admin/import/jobs/${encodeURIComponent(id)}`);
}

clusterTest(
  "kill-during-import",
  "SIGKILL of the instance running an import: another instance's sweep marks it failed " +
    "within a lease, the collection's lock is free, and what it wrote is indexed",
  async (cluster, findings) => {
    const ledger = new WriteLedger();
    const [a, b] = await startWarmCluster(cluster, ledger);
    const word = uniqueWord();
    const ITEMS = 600;
    const importUrl = (instance: { url: string }, query = "") =>
      `${instance.url}/api/admin/import?collection=${
        encodeURIComponent(cluster.collection)
      }${query}`;
    const encoder = new TextEncoder();
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
    // The answer comes only if the import fails before A dies: then it says why.
    let answered = "";
    const answer = fetch(importUrl(a), {
      method: "POST",
      headers: { "Content-Type": "application/n-quads" },
      body,
    }).then(async (response) => answered = `HTTP ${response.status} ${await response.text()}`)
      .catch(() => {});
    // A first part at once, the rest slowly: the import is still reading when A dies.
    const FIRST = 100;
    for (let n = 0; n < FIRST; n++) feed.enqueue(encoder.encode(importQuads(cluster, n, word)));
    let killed = false;
    const upload = (async () => {
      for (let n = FIRST; n < ITEMS && !killed; n++) {
        feed.enqueue(encoder.encode(importQuads(cluster, n, word)));
        if (n % 10 === 0) await sleep(50);
      }
    })().catch(() => {}); // the request ended: the kill, or an early answer
    let id: string | undefined;
    let writtenAtKill = 0;
    // What A's listing said last, for the report when no import shows in time.
    let listed = "nothing yet";
    try {
      // Generous: in CI, suites beside this one can keep the shared Virtuoso busy for a while.
      const deadline = Date.now() + 180_000;
      while (Date.now() < deadline) {
        const jobs = await call(`${a.url}/api/admin/import/jobs`);
        const listing = jobs.status === 200
          ? jobs.body as { id: string; state: string; written: number }[]
          : [];
        listed = jobs.status === 200
          ? JSON.stringify(listing.map(({ state, written }) => ({ state, written })))
          : `HTTP ${jobs.status} ${jobs.error ?? JSON.stringify(jobs.body)}`;
        const running = listing.find((job) => job.state === "running");
        if (running) id = running.id;
        if (running && running.written >= 50) {
          writtenAtKill = running.written;
          break;
        }
        await sleep(jobs.status === 200 ? 5 : 200);
      }
      if (id === undefined || writtenAtKill === 0) {
        throw new Error(
          `no running import with items written on A (job ${id}; listed ${listed}; ` +
            `answer: ${answered || "none"})`,
        );
      }
    } finally {
      await cluster.kill(a);
      killed = true;
      await upload;
      await answer;
    }
    const killedAt = Date.now();
    findings.measured(`killed A with import ${id} at ${writtenAtKill} items written`);
    // The record in the store, as the survivors' sweep leaves it: failed within a lease.
    const jobIri = `urn:rdf-content-service:import-job:${id}`;
    let recorded = "";
    const deadline = killedAt + clusterLeaseMs(cluster.engines) + 5_000;
    while (Date.now() < deadline) {
      const rows = await sparqlSelect(
        cluster.engines.sparql,
        `SELECT ?state WHERE { GRAPH <${cluster.metadataGraph}> {
           <${jobIri}> <urn:rdf-content-service:jobState> ?state } }`,
      );
      recorded = rows[0]?.state ?? "none";
      if (recorded === "failed") break;
      await sleep(200);
    }
    findings.measured(
      `the import's record reads ${recorded} ${Date.now() - killedAt} ms after the kill`,
    );
    findings.check(
      recorded === "failed",
      `within ${
        clusterLeaseMs(cluster.engines)
      } + 5000 ms of the kill the import's record is ${recorded}`,
    );
    const states: Record<string, string> = {};
    for (const instance of cluster.live()) {
      const read = await readImport(instance.url, id);
      const job = read.body as { state?: string; errors?: { message: string }[] };
      states[instance.name] = read.status === 200
        ? `${job.state}: ${job.errors?.at(-1)?.message}`
        : `HTTP ${read.status}`;
    }
    findings.measured(`the killed import per instance: ${JSON.stringify(states)}`);
    findings.check(
      Object.values(states).length === 2 &&
        Object.values(states).every((state) => state.startsWith("failed: ")),
      `the killed import per instance: ${JSON.stringify(states)}`,
    );
    // Every item of the body may or may not be stored now; the new import settles them.
    for (let n = 0; n < ITEMS; n++) {
      const uri = `https://data.example.org/id/cluster/${cluster.run}/import-${n}`;
      ledger.entries.set(uri, { uri, exists: undefined, version: 0, busy: true });
    }
    const all = Array.from({ length: ITEMS }, (_, n) => importQuads(cluster, n, word)).join("");
    const again = await call(importUrl(b, "&mode=upsert&wait=true"), {
      method: "POST",
      headers: { "Content-Type": "application/n-quads" },
      body: all,
    }, 300_000);
    const job = again.body as { state?: string; written?: number; errors?: unknown[] };
    findings.measured(
      `the import again on B: HTTP ${again.status}, ${job?.state}, written ${job?.written}`,
    );
    const succeeded = findings.check(
      again.status === 200 && job.state === "succeeded" && job.written === ITEMS,
      `the import again on B: HTTP ${again.status} ${JSON.stringify(job).slice(0, 300)}`,
    );
    if (succeeded) { for (const entry of ledger.entries.values()) entry.exists ??= true; }
    findings.report("after the import again", await verifyCluster(cluster, ledger));
  },
);

clusterTest(
  "concurrent-job-starts",
  "two instances start a job at once: one 202, one 409 naming it; all three see it run",
  async (cluster, findings) => {
    const ledger = new WriteLedger();
    const [a, b] = await startWarmCluster(cluster, ledger);
    await seed(cluster, ledger, findings, 500, uniqueWord());
    const startedAt = Date.now();
    const answers = await Promise.all([
      startCollectionJob(cluster, a.url, false),
      startCollectionJob(cluster, b.url, false),
    ]);
    // Look while it runs, before anything else.
    const [running, firstStates] = await Promise.all([
      runningEverywhere(cluster),
      (async () => {
        const accepted = answers.find((answer) => answer.status === 202);
        return accepted ? await jobStates(cluster, (accepted.body as JobView).id) : {};
      })(),
    ]);
    const statuses = answers.map((answer) => answer.status);
    findings.measured(`starts on A and B answered ${statuses.join(" and ")}`);
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 409);
    findings.check(
      accepted.length === 1 && refused.length === 1,
      `expected one 202 and one 409, got ${statuses.join(" and ")}`,
    );
    const jobIds = accepted.map((answer) => (answer.body as JobView).id);
    if (accepted.length === 1 && refused.length === 1) {
      const problem = refused[0].body as { type?: string; runningJob?: string };
      findings.measured(`the 409: ${JSON.stringify(problem)}`);
      findings.check(
        problem.runningJob === jobIds[0],
        `the 409's runningJob is ${problem.runningJob}, the 202's job ${jobIds[0]}`,
      );
      findings.check(
        String(problem.type ?? "").endsWith("indexing-running"),
        `the 409's type is ${problem.type}`,
      );
    }
    findings.measured(
      `while it runs: is-running ${JSON.stringify(running)}; job ${jobIds[0]} on each instance ` +
        `${JSON.stringify(firstStates)}`,
    );
    findings.check(
      Object.values(running).length === 3 &&
        Object.values(running).every((value) => value === true),
      `is-running while the job runs: ${JSON.stringify(running)}`,
    );
    findings.check(
      Object.values(firstStates).length === 3 &&
        Object.values(firstStates).every((state) => state === "running" || state === "queued"),
      `job ${jobIds[0]} while it runs, per instance: ${JSON.stringify(firstStates)}`,
    );
    const starter = [a, b][answers.findIndex((answer) => answer.status === 202)];
    findings.check(
      starter === undefined || firstStates[starter.name] !== "succeeded",
      "the job ended before the checks: seed more items",
    );
    // Every job started ends; then nothing runs anywhere.
    for (const [n, answer] of answers.entries()) {
      if (answer.status !== 202) continue;
      const instance = [a, b][n];
      const end = await waitForJobEnd(instance.url, (answer.body as JobView).id, 120_000);
      findings.measured(
        `the job started on ${instance.name} is ${stateOf(end)} after ${Date.now() - startedAt} ms`,
      );
      findings.check(stateOf(end) === "succeeded", `job on ${instance.name}: ${stateOf(end)}`);
    }
    const after = await runningEverywhere(cluster);
    findings.check(
      Object.values(after).every((value) => value === false),
      `is-running after the end: ${JSON.stringify(after)}`,
    );
    findings.report("after the jobs", await verifyCluster(cluster, ledger));
  },
  { batchSize: 25 },
);

clusterTest(
  "get-consistency",
  "conditional writes through two instances, reads through three: every body hashes to " +
    "its ETag and is never older than an acknowledged write",
  async (cluster, findings) => {
    const ledger = new WriteLedger();
    const [a, b] = await startWarmCluster(cluster, ledger);
    const word = uniqueWord();
    const ITEMS = 4;
    const DURATION_MS = 8_000;
    const uris = Array.from({ length: ITEMS }, (_, n) => cluster.itemUri(`read-${n}`));
    /** Per item: the highest version acknowledged so far, and its ETag. */
    const acknowledged = new Map<string, { version: number; hash: string }>();
    for (const uri of uris) {
      const { contentType, body } = itemBody(uri, word, 0, "turtle");
      const response = await fetch(`${a.url}${cluster.itemPath(uri)}`, {
        method: "PUT",
        headers: { "Content-Type": contentType },
        body,
      });
      await response.body?.cancel();
      if (response.status !== 201) throw new Error(`create ${uri}: HTTP ${response.status}`);
      acknowledged.set(uri, { version: 0, hash: etagValue(response) });
    }
    const stopAt = Date.now() + DURATION_MS;
    const counts = { reads: 0, mismatches: 0, older: 0, readErrors: 0, written: 0, refused: 0 };
    const examples: string[] = [];
    /** Per instance: reads, and reads whose body did not hash to their ETag. */
    const perInstance: Record<string, { reads: number; mismatches: number }> = {};
    const read = async (baseUrl: string, uri: string) => {
      const response = await fetch(`${baseUrl}${cluster.itemPath(uri)}`, {
        headers: { Accept: "application/n-triples" },
      });
      return { status: response.status, etag: etagValue(response), text: await response.text() };
    };
    const writer = async (baseUrl: string, uri: string) => {
      while (Date.now() < stopAt) {
        const current = await read(baseUrl, uri);
        if (current.status !== 200) {
          counts.readErrors++;
          continue;
        }
        const version = versionOf(current.text) + 1;
        const { contentType, body } = itemBody(
          uri,
          word,
          version,
          version % 2 ? "jsonld" : "turtle",
        );
        const response = await fetch(`${baseUrl}${cluster.itemPath(uri)}`, {
          method: "POST",
          headers: { "Content-Type": contentType, "If-Match": `"${current.etag}"` },
          body,
        });
        await response.body?.cancel();
        if (response.status === 204) {
          counts.written++;
          const known = acknowledged.get(uri)!;
          if (version > known.version) {
            acknowledged.set(uri, { version, hash: etagValue(response) });
          }
        } else if (response.status === 412) {
          counts.refused++;
        } else {
          examples.push(`write ${uri} via ${baseUrl}: HTTP ${response.status}`);
        }
      }
    };
    const reader = async (offset: number) => {
      const instances = cluster.live();
      for (let n = offset; Date.now() < stopAt; n++) {
        const instance = instances[n % instances.length];
        const uri = uris[n % uris.length];
        const floor = acknowledged.get(uri)!.version;
        const served = await read(instance.url, uri);
        counts.reads++;
        const mine = perInstance[instance.name] ??= { reads: 0, mismatches: 0 };
        mine.reads++;
        if (served.status !== 200) {
          counts.readErrors++;
          examples.push(`read ${uri} via ${instance.name}: HTTP ${served.status}`);
          continue;
        }
        const hash = await hashNTriples(served.text);
        if (hash !== served.etag) {
          counts.mismatches++;
          mine.mismatches++;
          examples.push(`${instance.name} served ${uri} hashing ${hash} with ETag ${served.etag}`);
        }
        const version = versionOf(served.text);
        if (version < floor) {
          counts.older++;
          examples.push(
            `${instance.name} served ${uri} version ${version} after ${floor} was acknowledged`,
          );
        }
      }
    };
    await Promise.all([
      ...uris.flatMap((uri) => [writer(a.url, uri), writer(b.url, uri)]),
      ...Array.from({ length: 6 }, (_, n) => reader(n)),
    ]);
    findings.measured(
      `${counts.reads} reads through 3 instances, ${counts.written} versions written ` +
        `(${counts.refused} × 412) through A and B: ${counts.mismatches} body/ETag mismatches, ` +
        `${counts.older} reads older than an acknowledged write, ${counts.readErrors} read ` +
        `errors; per instance (A and B write, C only reads): ${JSON.stringify(perInstance)}`,
    );
    findings.check(counts.reads > 0 && counts.written > 0, "nothing was read or written");
    findings.check(counts.mismatches === 0, `${counts.mismatches} body/ETag mismatches`);
    findings.check(counts.older === 0, `${counts.older} reads older than an acknowledged write`);
    findings.check(examples.length === 0, `unexpected answers: ${examples.slice(0, 5).join("; ")}`);
    // And the index ends up with the last version of each.
    for (const [uri, { hash }] of acknowledged) {
      ledger.entries.set(uri, { uri, exists: true, hash, version: 0, busy: false });
    }
    ledger.acknowledgedCreates += ITEMS;
    ledger.acknowledgedUpdates += counts.written;
    findings.report("after the conditional writes", await verifyCluster(cluster, ledger));
  },
);
