/**
 * Webhook delivery state in the SPARQL store's metadata graph (`sparql_webhook_state.ts`)
 * against each real store (`[fuseki] …`, `[virtuoso] …`: tests/support/sparql_stores.ts),
 * each run in a metadata graph of its own: positions, failures and dead letters as the
 * embedded state keeps them, and the lease that lets one instance of several deliver to an
 * endpoint: taken by one holder at a time, taken over once it ends, renewed by the holder's
 * writes, and refused to the writes of an instance that lost it.
 */
import { strict as assert } from "node:assert";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { SparqlWebhookState } from "../../src/webhooks/sparql_webhook_state.ts";
import type { AttemptOutcome, EndpointKey } from "../../src/webhooks/webhook_state.ts";
import type { ItemChange } from "../../src/store/change_feed.ts";
import {
  dropGraphsStartingWith,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

const key: EndpointKey = {
  collection: "https://data.example.org/collection/c",
  url: "https://hooks.example.org/in?x=1",
};

/**
 * A lease that ends within the test, with room for a few requests to come back on a busy
 * store (the timing checks below are off by more than half of it only if they take longer).
 */
const SHORT_LEASE_MS = 2_000;

function change(cursor: number): ItemChange {
  return {
    cursor: String(cursor),
    time: new Date(cursor).toISOString(),
    collection: key.collection,
    item: `https://data.example.org/item/${cursor}`,
    operation: "updated",
    etag: `"e${cursor}"`,
    principal: "token:t",
  };
}

function outcome(at: number, status: number | null, error: string | null): AttemptOutcome {
  return { at: new Date(at).toISOString(), status, error };
}

const ok = (at: number) => outcome(at, 204, null);
const refused = (at: number) => outcome(at, 503, "answered 503");

/** Runs `fn` with a client on the store and a metadata graph of its own, dropped after. */
async function inOwnGraph(
  endpoints: StoreEndpoints,
  fn: (client: SparqlHttpClient, graph: string) => Promise<void>,
): Promise<void> {
  const run = `urn:rcs-test:webhooks-${crypto.randomUUID()}`;
  const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 30_000, retries: 0 });
  try {
    await fn(client, `${run}:meta`);
  } finally {
    client.close();
    await dropGraphsStartingWith(endpoints, run);
  }
}

const noPosition = () => Promise.reject(new Error("the stored position is used"));

sparqlStoreTests(
  "webhook state: positions, failures and dead letters as the embedded state keeps them",
  (endpoints) =>
    inOwnGraph(endpoints, async (client, graph) => {
      const state = new SparqlWebhookState(client, graph, 30_000);
      const me = "instance-a";
      assert.equal(await state.claim(key, me), true);
      const opened = await state.open(key, () => Promise.resolve("5"));
      assert.equal(opened.position, "5");
      assert.deepEqual(
        [opened.attempts, opened.failingSince, opened.nextAttempt, opened.last],
        [0, null, null, null],
      );
      assert.equal(opened.lease?.holder, me);
      assert.ok(Date.parse(opened.lease!.until) > Date.now(), "the lease is live");
      assert.equal((await state.open(key, noPosition)).position, "5", "created once");

      // Failures count up; the first failure's time stays while the change fails.
      await state.failed(key, refused(1000), new Date(2000).toISOString(), me);
      await state.failed(key, refused(3000), new Date(5000).toISOString(), me);
      let now = await state.open(key, noPosition);
      assert.deepEqual(
        [now.position, now.attempts, now.failingSince, now.nextAttempt, now.last],
        ["5", 2, new Date(1000).toISOString(), new Date(5000).toISOString(), refused(3000)],
      );
      await state.delivered(key, { change: change(6) }, ok(6000), me);
      now = await state.open(key, noPosition);
      assert.deepEqual(
        [now.position, now.attempts, now.failingSince, now.nextAttempt, now.last],
        ["6", 0, null, null, ok(6000)],
      );

      // Given up: kept with its attempts, and the position passes it.
      await state.failed(key, refused(7000), new Date(8000).toISOString(), me);
      await state.deadLettered(key, { change: change(7) }, refused(9000), me);
      await state.deadLettered(key, { change: change(8) }, refused(9500), me);
      now = await state.open(key, noPosition);
      assert.deepEqual([now.position, now.attempts, now.failingSince], ["8", 0, null]);
      const letters = await state.deadLetters();
      assert.deepEqual(
        letters.map((l) => [l.change, l.state, l.attempts, l.deadAt, l.last, l.url]),
        [
          [change(7), "dead", 2, refused(9000).at, refused(9000), key.url],
          [change(8), "dead", 1, refused(9500).at, refused(9500), key.url],
        ],
      );
      const [seven, eight] = letters.map((l) => l.id);
      // Ids fit `redeliver?id=` (at most 15 digits).
      assert.ok(letters.every((l) => Number.isInteger(l.id) && l.id > 0 && l.id < 10 ** 15));
      assert.notEqual(seven, eight);

      // Put back: the oldest queued letter goes first, whatever order they were put back in.
      assert.equal(await state.queuedLetter(key), undefined);
      assert.equal((await state.redeliver(eight))?.state, "queued");
      assert.equal((await state.redeliver(seven))?.state, "queued");
      assert.equal(await state.redeliver(0), undefined, "no such letter");
      assert.equal((await state.queuedLetter(key))?.id, seven);
      await state.delivered(key, { change: change(7), letter: seven }, ok(10_000), me);
      assert.deepEqual((await state.deadLetters()).map((l) => l.id), [eight]);
      assert.equal((await state.open(key, noPosition)).position, "8", "a letter moves nothing");
      await state.failed(key, refused(11_000), new Date(12_000).toISOString(), me);
      await state.deadLettered(key, { change: change(8), letter: eight }, refused(13_000), me);
      const [buried] = await state.deadLetters();
      assert.deepEqual(
        [buried.id, buried.state, buried.attempts, buried.deadAt],
        [eight, "dead", 3, refused(13_000).at],
      );
      assert.equal(await state.queuedLetter(key), undefined);

      const lost = outcome(14_000, null, "pruned");
      await state.skipTo(key, "20", lost, me);
      const states = await state.states();
      assert.deepEqual(
        states.map((s) => [s.collection, s.url, s.position, s.attempts, s.last]),
        [[key.collection, key.url, "20", 0, lost]],
      );
    }),
);

sparqlStoreTests(
  "webhook state: one holder per endpoint; an ended lease is taken over; a lost one moves nothing",
  (endpoints) =>
    inOwnGraph(endpoints, async (client, graph) => {
      const a = new SparqlWebhookState(client, graph, SHORT_LEASE_MS);
      const b = new SparqlWebhookState(client, graph, SHORT_LEASE_MS);
      const position = async () => (await a.open(key, noPosition)).position;
      const claimedAt = Date.now();
      assert.equal(await a.claim(key, "a"), true);
      assert.equal(await b.claim(key, "b"), false, "a holds it");
      assert.equal(await a.claim(key, "a"), true, "the holder renews");
      await a.open(key, () => Promise.resolve("1"));

      // Only the holder's writes take effect.
      await b.delivered(key, { change: change(2) }, ok(2000), "b");
      await b.failed(key, refused(2000), new Date(3000).toISOString(), "b");
      await b.skipTo(key, "9", refused(2000), "b");
      assert.deepEqual(
        [await position(), (await a.open(key, noPosition)).attempts],
        ["1", 0],
      );

      // A write renews the lease: past the claim's lease, b still cannot take it.
      await sleepUntil(claimedAt + SHORT_LEASE_MS * 0.6);
      const renewedAt = Date.now();
      await a.delivered(key, { change: change(2) }, ok(2000), "a");
      assert.equal(await position(), "2");
      await sleepUntil(claimedAt + SHORT_LEASE_MS + 100);
      assert.equal(await b.claim(key, "b"), false, "renewed by the write");

      // a stops writing (dies): once its lease ends, b takes over from the recorded position.
      await sleepUntil(renewedAt + SHORT_LEASE_MS + 100);
      assert.equal(await b.claim(key, "b"), true, "the ended lease is taken over");
      const taken = await b.open(key, noPosition);
      assert.deepEqual([taken.position, taken.lease?.holder], ["2", "b"]);
      assert.equal(await a.claim(key, "a"), false, "b holds it now");
      await a.delivered(key, { change: change(3) }, ok(3000), "a");
      await a.deadLettered(key, { change: change(3) }, refused(3000), "a");
      assert.equal(await position(), "2", "the instance that lost the lease moves nothing");
      assert.deepEqual(await a.deadLetters(), []);
      await b.delivered(key, { change: change(3) }, ok(3000), "b");
      assert.equal(await position(), "3");

      // Given back, it is free at once.
      await b.release(key, "b");
      assert.equal(await a.claim(key, "a"), true);
      assert.equal((await a.states())[0].lease?.holder, "a");
    }),
);

function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}
