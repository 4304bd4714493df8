/**
 * The deliverer's use of endpoint leases (`webhook_deliverer.ts`), logic only: the state is
 * the embedded one wrapped so the test says who holds the lease (a shared store's other
 * instance), the feed a list, the receiver a local HTTP server. It claims before it delivers,
 * leaves an endpoint another instance holds alone until the lease is free, delivers from the
 * recorded position then, claims again per half lease rather than per change, writes the
 * position once per run of changes, stops once taken over (at the end of the run it was in),
 * and gives its leases back on stop.
 */
import { strict as assert } from "node:assert";
import { openLocalDatabase } from "../../src/local_database.ts";
import { SqliteWebhookState } from "../../src/webhooks/sqlite_webhook_state.ts";
import { RUN_CHANGES, WebhookDeliverer } from "../../src/webhooks/webhook_deliverer.ts";
import type { ChangeFeed, ItemChange } from "../../src/store/change_feed.ts";
import type {
  AttemptOutcome,
  DeliveryState,
  DueChange,
  EndpointKey,
  WebhookStateStore,
} from "../../src/webhooks/webhook_state.ts";

const COLLECTION = "https://data.example.org/collection/c";
const SECRET = "whsec_" + btoa("0123456789abcdef0123");
const ME = "instance-a";

function change(cursor: number): ItemChange {
  return {
    cursor: String(cursor),
    time: new Date(cursor).toISOString(),
    collection: COLLECTION,
    item: `https://data.example.org/item/${cursor}`,
    operation: "updated",
    etag: `"e${cursor}"`,
    principal: "local",
  };
}

/** A feed of `count` changes, cursors 1 to `count`. */
function listFeed(count: number): ChangeFeed {
  const changes = Array.from({ length: count }, (_, i) => change(i + 1));
  return {
    read: (_collection, after, limit) => {
      const rest = changes.filter((c) => Number(c.cursor) > Number(after ?? 0)).slice(0, limit);
      return Promise.resolve({ changes: rest, next: rest.at(-1)?.cursor ?? after ?? "0" });
    },
    subscribe: () => () => {},
    end: () => Promise.resolve(String(count)),
    beforeNewest: (_collection, newest) => Promise.resolve(String(Math.max(0, count - newest))),
    prune: () => Promise.resolve(0),
  };
}

/**
 * The embedded state, with the lease as a shared store would keep it: `other` holds it (no
 * claim of ours succeeds) or nobody does; `takenBy` is what `open` says holds it.
 */
class LeasedState implements WebhookStateStore {
  other: string | null = null;
  takenBy: string | null = null;
  claims = 0;
  /** Writes of a delivered position. */
  deliveredWrites = 0;
  released: string[] = [];
  writers = new Set<string>();
  /** Called after each delivered change is recorded. */
  onDelivered = () => {};
  readonly #inner: SqliteWebhookState;

  constructor(inner: SqliteWebhookState) {
    this.#inner = inner;
  }

  claim(_key: EndpointKey, holder: string): Promise<boolean> {
    this.claims++;
    return Promise.resolve(this.other === null && holder === ME);
  }

  release(key: EndpointKey, holder: string): Promise<void> {
    this.released.push(`${key.url} ${holder}`);
    return Promise.resolve();
  }

  async open(key: EndpointKey, position: () => Promise<string>): Promise<DeliveryState> {
    const state = await this.#inner.open(key, position);
    const holder = this.takenBy ?? ME;
    return { ...state, lease: { holder, until: new Date(Date.now() + 60_000).toISOString() } };
  }

  queuedLetter(key: EndpointKey) {
    return this.#inner.queuedLetter(key);
  }

  async delivered(key: EndpointKey, due: DueChange, outcome: AttemptOutcome, holder: string) {
    this.writers.add(holder);
    this.deliveredWrites++;
    await this.#inner.delivered(key, due, outcome);
    this.onDelivered();
  }

  failed(key: EndpointKey, outcome: AttemptOutcome, nextAttempt: string, holder: string) {
    this.writers.add(holder);
    return this.#inner.failed(key, outcome, nextAttempt);
  }

  deadLettered(key: EndpointKey, due: DueChange, outcome: AttemptOutcome, holder: string) {
    this.writers.add(holder);
    return this.#inner.deadLettered(key, due, outcome);
  }

  skipTo(key: EndpointKey, position: string, outcome: AttemptOutcome, holder: string) {
    this.writers.add(holder);
    return this.#inner.skipTo(key, position, outcome);
  }

  redeliver(id: number) {
    return this.#inner.redeliver(id);
  }

  states() {
    return this.#inner.states();
  }

  deadLetters() {
    return this.#inner.deadLetters();
  }
}

/** A receiver answering 204 and keeping the cursors it got, on a free local port. */
function receiver() {
  const got: string[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    got.push((await req.json()).cursor);
    return new Response(null, { status: 204 });
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}/hook`, close: () => server.shutdown() };
}

/** Runs `fn` with a deliverer on a feed of `count` changes, its endpoint at position 0. */
async function withDeliverer(
  count: number,
  leaseMs: number,
  fn: (
    state: LeasedState,
    deliverer: WebhookDeliverer,
    got: string[],
    url: string,
  ) => Promise<void>,
): Promise<void> {
  const db = openLocalDatabase(":memory:");
  const hook = receiver();
  const state = new LeasedState(new SqliteWebhookState(db));
  await state.open({ collection: COLLECTION, url: hook.url }, () => Promise.resolve("0"));
  const deliverer = new WebhookDeliverer({
    feed: listFeed(count),
    state,
    endpoints: () => [{ collection: COLLECTION, url: hook.url, secret: SECRET }],
    retryForMs: 60_000,
    retryStartMs: 1000,
    retryMaxMs: 1000,
    timeoutMs: 1000,
    pollMs: 20,
    holder: ME,
    leaseMs,
  });
  try {
    await fn(state, deliverer, hook.got, hook.url);
  } finally {
    await deliverer.stop();
    await hook.close();
    db.close();
  }
}

async function until(what: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!await what()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("webhook lease: an endpoint another instance holds is left alone until its lease is free", async () => {
  await withDeliverer(3, 60_000, async (state, deliverer, got, url) => {
    state.other = "instance-b";
    deliverer.start();
    await until(() => state.claims >= 3); // the poll keeps asking
    assert.deepEqual(got, [], "nothing is sent while another instance holds the endpoint");
    state.other = null;
    await until(() => got.length === 3);
    assert.deepEqual(got, ["1", "2", "3"], "delivered from the recorded position, in order");
    // The run's position is written once its last change was answered.
    await until(async () => (await state.states())[0]?.position === "3");
    assert.deepEqual([...state.writers], [ME], "the writes name this instance");
    await deliverer.stop();
    assert.deepEqual(state.released, [`${url} ${ME}`], "given back on stop");
  });
});

Deno.test("webhook lease: claimed once per half lease, not once per change", async () => {
  await withDeliverer(30, 60_000, async (state, deliverer, got) => {
    deliverer.start();
    await until(() => got.length === 30);
    assert.equal(state.claims, 1);
  });
  // A lease (800 ms) shorter than a POST's timeout (1 s): every attempt claims first.
  await withDeliverer(5, 800, async (state, deliverer, got) => {
    deliverer.start();
    await until(() => got.length === 5);
    assert.ok(state.claims >= 5, `${state.claims} claims`);
  });
});

Deno.test("webhook lease: taken over by another instance, this one sends nothing after its run", async () => {
  await withDeliverer(RUN_CHANGES + 20, 60_000, async (state, deliverer, got) => {
    state.onDelivered = () => {
      // The lease ended meanwhile and instance-b took the endpoint.
      state.takenBy = state.other = "instance-b";
    };
    deliverer.start();
    await until(() => got.length >= 1 && state.deliveredWrites === 1);
    const sent = got.length;
    assert.ok(sent <= RUN_CHANGES, `at most one run: ${sent}`);
    const claims = state.claims;
    await until(() => state.claims >= claims + 3); // polls come and go
    assert.equal(got.length, sent, "nothing more once the run's write showed the takeover");
    await deliverer.stop();
    assert.deepEqual(state.released, [], "nothing held is given back");
  });
});

Deno.test("webhook runs: the position is written once per run of changes, not per change", async () => {
  const count = RUN_CHANGES * 4;
  await withDeliverer(count, 60_000, async (state, deliverer, got) => {
    deliverer.start();
    await until(() => got.length === count);
    await until(async () => (await state.states())[0]?.position === String(count));
    assert.deepEqual(got, Array.from({ length: count }, (_, i) => String(i + 1)));
    assert.ok(
      state.deliveredWrites < count / 5,
      `${state.deliveredWrites} position writes for ${count} changes`,
    );
  });
});
