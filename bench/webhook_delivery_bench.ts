/**
 * Webhook delivery rate (issue 42: "webhook delivery ≥ 500 changes/s to a local receiver"):
 * the embedded store's feed holds N committed changes of one collection; the deliverer
 * (src/webhooks/webhook_deliverer.ts) sends them, signed, one at a time in order, to a
 * receiver on loopback that answers 204. The anchor, run side by side: the same N bodies
 * POSTed in order by a plain loop (no signing, no position kept), the floor of in-order HTTP
 * delivery on this machine. With `SERVICE_SPARQL_*` set, the same on that SPARQL store (Fuseki
 * in the test environment; its feed and the delivery state in graphs of the run's own), where
 * each state write is a request to the store.
 *
 *   deno run -A bench/webhook_delivery_bench.ts [changes, default 2000]
 *
 * The receiver is a node:http server in this process (as tests/api/webhooks_test.ts).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DataFactory } from "n3";
import { openLocalDatabase } from "../src/local_database.ts";
import { SparqlHttpClient } from "../src/sparql_protocol/client.ts";
import { EmbeddedTripleStore } from "../src/store_embedded/embedded_triple_store.ts";
import { SparqlTripleStore } from "../src/store_sparql/sparql_triple_store.ts";
import type { TripleStore } from "../src/store/triple_store.ts";
import { SqliteWebhookState } from "../src/webhooks/sqlite_webhook_state.ts";
import { SparqlWebhookState } from "../src/webhooks/sparql_webhook_state.ts";
import { WebhookDeliverer } from "../src/webhooks/webhook_deliverer.ts";
import type { WebhookStateStore } from "../src/webhooks/webhook_state.ts";
import { CONFIG_DEFAULTS, SPARQL_STORE_DEFAULTS } from "../tests/support/config_defaults.ts";
import { sparqlEndpointsFromEnv } from "../tests/support/fuseki.ts";

const { namedNode, literal, quad } = DataFactory;
const CHANGES = Number(Deno.args[0] ?? 2000);
const COLLECTION = "https://data.example.org/collection/webhook-bench";
const SECRET = `whsec_${btoa("a bench secret of 32 bytes......")}`;

let received = 0;
let onReceived: (() => void) | undefined;
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    received++;
    response.writeHead(204).end();
    onReceived?.();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

function until(count: number): Promise<void> {
  return new Promise((resolve) => {
    onReceived = () => {
      if (received >= count) resolve();
    };
    onReceived();
  });
}

/** A store with a feed, its delivery state, and how to throw both away. */
interface Setup {
  name: string;
  store: TripleStore;
  state: WebhookStateStore;
  close(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-webhook-bench-" });
  const db = openLocalDatabase(dir);
  const store = new EmbeddedTripleStore(
    db,
    `${dir}/rdf-content-service.db`,
    CONFIG_DEFAULTS.store.groupCommit,
  );
  return {
    name: "embedded",
    store,
    state: new SqliteWebhookState(db),
    close: async () => {
      await store.close();
      db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function sparql(): Promise<Setup | undefined> {
  const endpoints = sparqlEndpointsFromEnv();
  if (!endpoints) return undefined;
  const run = `urn:rcs-bench:webhooks:${crypto.randomUUID()}:`;
  const config = { ...endpoints, timeoutMs: 60_000, retries: 2 };
  const store = new SparqlTripleStore({
    ...SPARQL_STORE_DEFAULTS,
    ...config,
    metadataGraph: `${run}meta`,
    graphTemplate: `${run}{item}`,
  });
  await store.checkCapabilities();
  const client = new SparqlHttpClient(config);
  return {
    name: "fuseki",
    store,
    state: new SparqlWebhookState(client, `${run}meta`, 30_000),
    close: async () => {
      await store.close();
      await client.update(`DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o }
        FILTER(STRSTARTS(STR(?g), "${run}")) }`);
      client.close();
    },
  };
}

async function measure(setup: Setup): Promise<void> {
  const { store, state } = setup;
  const feed = store.changes!;
  const endpoint = { collection: COLLECTION, url, secret: SECRET };
  // The endpoint starts at the feed's end: open it before the writes, so it owes all of them.
  await state.open(endpoint, () => feed.end(COLLECTION));
  const writes = [];
  for (let n = 0; n < CHANGES; n++) {
    const uri = `${COLLECTION}/item-${n}`;
    writes.push(store.createItem({
      collection: COLLECTION,
      uri,
      quads: [quad(namedNode(uri), namedNode("http://purl.org/dc/terms/title"), literal(`t ${n}`))],
      hash: `h${n}`,
    }));
  }
  await Promise.all(writes);
  const bodies: string[] = [];
  let after: string | undefined;
  while (bodies.length < CHANGES) {
    const page = await feed.read(COLLECTION, after, 1000);
    if (page.changes.length === 0) break;
    bodies.push(...page.changes.map((change) => JSON.stringify(change)));
    after = page.next;
  }

  async function plainLoop(): Promise<number> {
    received = 0;
    const started = performance.now();
    for (const body of bodies) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      await response.body?.cancel();
    }
    await until(bodies.length);
    return performance.now() - started;
  }

  async function deliverer(): Promise<number> {
    received = 0;
    const delivering = new WebhookDeliverer({
      feed,
      state,
      endpoints: () => [endpoint],
      retryForMs: 60_000,
      retryStartMs: 100,
      retryMaxMs: 1000,
      timeoutMs: 10_000,
    });
    const started = performance.now();
    delivering.start();
    await until(CHANGES);
    const ms = performance.now() - started;
    await delivering.stop();
    return ms;
  }

  const plainMs = await plainLoop();
  const deliveredMs = await deliverer();
  const rate = (ms: number) => Math.round(CHANGES / (ms / 1000));
  console.log(
    `${setup.name}: webhook delivery, ${CHANGES} changes in order to a loopback receiver: ` +
      `deliverer ${rate(deliveredMs)} changes/s (${deliveredMs.toFixed(0)} ms), ` +
      `plain POST loop ${rate(plainMs)} changes/s (${plainMs.toFixed(0)} ms); ` +
      `deliverer/loop rate ${(plainMs / deliveredMs).toFixed(2)}×`,
  );
}

for (const open of [embedded, sparql]) {
  const setup = await open();
  if (!setup) continue;
  try {
    await measure(setup);
  } finally {
    await setup.close();
  }
}
receiver.close();
