/**
 * SIGKILL during a stream of acknowledged writes: after a restart every acknowledged write
 * is there, whole, and no item is half-written; its change feed (issue 42), followed live
 * before the kill and resumed by `Last-Event-ID` after the restart, has each committed write
 * exactly once and nothing for one that did not commit; the collection's webhook, a receiver on
 * loopback, ends with the same changes in the same order (a run cut by the kill may come twice,
 * with the same `webhook-id`), each signature verified. 32 concurrent writers keep group commit
 * busy (src/store/group_commit.ts): at the kill, groups are queued, committed and waiting
 * for their fsync, or being fsynced.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION, itemQuery } from "../support/service.ts";
import { EventReader } from "../support/event_stream.ts";
import type { ItemChange } from "../../src/store/change_feed.ts";
import { RUN_CHANGES } from "../../src/webhooks/webhook_deliverer.ts";
import { newSecret, Receiver, verifySignature } from "../support/webhook_receiver.ts";

const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));

const TRIPLES_PER_ITEM = 50;
const WRITERS = 32;

function itemBody(uri: string, version: number): string {
  const lines = [];
  for (let i = 0; i < TRIPLES_PER_ITEM; i++) {
    lines.push(`<${uri}> <http://example.org/p${i}> "value ${i} of version ${version}" .`);
  }
  return lines.join("\n");
}

async function countTriples(url: string, uri: string): Promise<number | undefined> {
  const response = await fetch(`${url}/api/item?${itemQuery(uri)}`, {
    headers: { Accept: "application/n-triples" },
  });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  assert.equal(response.status, 200);
  return (await response.text()).split("\n").filter((line) => line.trim() !== "").length;
}

/**
 * The item's versions (operation and hash), oldest first: none for an item that never was
 * written (404). The embedded store keeps them in the write's own transaction.
 */
async function versionsOf(url: string, uri: string): Promise<[string, string | null][]> {
  const response = await fetch(`${url}/api/item/history?${itemQuery(uri)}`);
  if (response.status === 404) {
    await response.body?.cancel();
    return [];
  }
  assert.equal(response.status, 200);
  const { versions } = await response.json() as {
    versions: { operation: string; hash: string | null }[];
  };
  return versions.map((v): [string, string | null] => [v.operation, v.hash]).reverse();
}

/** The item's ETag value, or undefined for a missing item. */
async function hashOf(url: string, uri: string): Promise<string | undefined> {
  const response = await fetch(`${url}/api/item?${itemQuery(uri)}`);
  await response.body?.cancel();
  return response.status === 200 ? response.headers.get("etag")!.replaceAll('"', "") : undefined;
}

/**
 * Follows the demo collection's feed on `url` (after `lastEventId`) into `into` until the
 * stream ends or `idleMs` pass without an event.
 */
async function follow(
  url: string,
  into: ItemChange[],
  idleMs: number,
  lastEventId?: string,
): Promise<void> {
  const response = await fetch(
    `${url}/api/changes?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
    {
      headers: {
        Accept: "text/event-stream",
        ...(lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId }),
      },
    },
  );
  assert.equal(response.status, 200);
  const events = new EventReader(response);
  try {
    for (;;) {
      const got = await events.within(idleMs).catch(() => undefined);
      if (got === "timeout" || got === undefined) return;
      if (got.event === "change") into.push(JSON.parse(got.data!) as ItemChange);
    }
  } finally {
    await events.close();
  }
}

Deno.test({
  name: "SIGKILL during acknowledged writes loses nothing and half-writes nothing; the feed " +
    "resumed after the restart has each committed write once",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-kill-" });
    const receiver = await Receiver.start();
    const secret = newSecret();
    const yamlPath = `${dataDir}.yml`;
    await Deno.writeTextFile(
      yamlPath,
      SHIPPED.replace(
        "        itemUriTemplate: https://data.example.org/id/document/{uuid}\n",
        "        itemUriTemplate: https://data.example.org/id/document/{uuid}\n" +
          `        webhooks:\n          - { url: "${receiver.url}", secret: "${secret}" }\n`,
      ),
    );
    const env = { SERVICE_DATA_DIR: dataDir, CUSTOMER_YML: yamlPath };
    try {
      const first = await startServiceProcess(env);
      const fed: ItemChange[] = [];
      // Ends with the kill (the stream is cut); a long idle wait never ends it first.
      const following = follow(first.url, fed, 120_000);
      const acknowledged = new Set<string>();
      const attempted = new Set<string>();
      let stop = false;
      const writer = async (id: number) => {
        for (let n = 0; !stop; n++) {
          const uri = `https://data.example.org/id/kill/${id}-${n}`;
          attempted.add(uri);
          try {
            const response = await fetch(
              `${first.url}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
              {
                method: "PUT",
                headers: { "Content-Type": "application/n-triples" },
                body: itemBody(uri, n),
              },
            );
            await response.body?.cancel();
            if (response.status === 201) acknowledged.add(uri);
          } catch {
            return; // the server died under us
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, id) => writer(id));
      while (acknowledged.size < 120) await new Promise((resolve) => setTimeout(resolve, 10));
      await first.kill();
      stop = true;
      await Promise.all(writers);
      await following;
      // Every writer had a write in flight: the kill fell on a busy group commit.
      assert.ok(attempted.size - acknowledged.size >= WRITERS / 2, "writes in flight at the kill");

      const second = await startServiceProcess(env);
      try {
        for (const uri of acknowledged) {
          assert.equal(await countTriples(second.url, uri), TRIPLES_PER_ITEM, `${uri} lost`);
          // Exactly one version, the write's own (item history, issue 41).
          const hash = await hashOf(second.url, uri);
          assert.deepEqual(await versionsOf(second.url, uri), [["create", hash]], uri);
        }
        // The feed, resumed where the stream cut: each committed write once, in the order the
        // JSON pages give, and nothing of a write that did not commit.
        const seenBeforeKill = fed.length;
        await follow(second.url, fed, 2_000, fed.at(-1)?.cursor);
        const mine = fed.filter((change) => attempted.has(change.item));
        assert.equal(
          new Set(mine.map((change) => change.item)).size,
          mine.length,
          "each item's create once",
        );
        const cursors = fed.map((change) => Number(change.cursor));
        assert.ok(cursors.every((c, n) => n === 0 || c > cursors[n - 1]), "cursors grow");
        for (const uri of acknowledged) {
          const change = mine.find((c) => c.item === uri);
          assert.equal(change?.etag, await hashOf(second.url, uri), `${uri}: its change`);
        }
        let inFlightWhole = 0;
        for (const uri of attempted) {
          if (acknowledged.has(uri)) continue;
          const count = await countTriples(second.url, uri);
          assert.ok(count === undefined || count === TRIPLES_PER_ITEM, `${uri} half-written`);
          if (count) inFlightWhole++;
          // A version exactly when the write was committed, and never without it.
          const hash = await hashOf(second.url, uri);
          assert.deepEqual(
            await versionsOf(second.url, uri),
            hash === undefined ? [] : [["create", hash]],
            `${uri}: versions of a write in flight at the kill`,
          );
          assert.deepEqual(
            mine.filter((change) => change.item === uri).map((change) => change.etag),
            hash === undefined ? [] : [hash],
            `${uri}: the feed of a write in flight at the kill`,
          );
        }
        // The webhook: every change of the feed, in its order, each signature the spec's.
        const deadline = Date.now() + 30_000;
        const firsts = () => new Set(receiver.accepted().map((change) => change.cursor));
        while (firsts().size < fed.length && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const order = [...firsts()];
        assert.deepEqual(order, fed.map((change) => change.cursor), "the webhook got the feed");
        const repeated = receiver.accepted().length - order.length;
        assert.ok(repeated <= RUN_CHANGES, `${repeated} sent twice: at most the run the kill cut`);
        for (const got of receiver.received) {
          assert.ok(await verifySignature(secret, got), `signature of ${got.id}`);
        }
        console.log(
          `acknowledged ${acknowledged.size}, in flight at the kill ${
            attempted.size - acknowledged.size
          } (${inFlightWhole} of them committed whole); feed: ${seenBeforeKill} changes before ` +
            `the kill, ${fed.length - seenBeforeKill} after resuming; webhook: ` +
            `${receiver.accepted().length} accepted`,
        );
      } finally {
        await second.stop();
      }
    } finally {
      await receiver.close();
      await Deno.remove(dataDir, { recursive: true });
      await Deno.remove(yamlPath).catch(() => {});
    }
  },
});
