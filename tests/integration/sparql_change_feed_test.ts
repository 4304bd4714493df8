/**
 * The change feed on the SPARQL store, against each real store (`[fuseki] …`,
 * `[virtuoso] …`: tests/support/sparql_stores.ts): three store objects on one metadata graph
 * (three instances' worth of group commits) write at once, and the feed numbers every applied
 * write exactly once, 1, 2, 3, … with no gap and no number twice, each item's changes in the
 * order of its versions, none for a refused write; pruning raises the horizon and an older
 * cursor is told expired. First writes to a fresh collection from three instances at once
 * take a number each.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { problemOf } from "../../src/http/problem.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import type { ItemChange } from "../../src/store/change_feed.ts";
import {
  dropGraphsStartingWith,
  openCheckedStore,
  sparqlStoreTests,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad } = DataFactory;
const TITLE = namedNode("http://purl.org/dc/terms/title");

async function write(collection: string, uri: string, title: string) {
  const quads = [quad(namedNode(uri), TITLE, literal(title))];
  return { collection, uri, quads, hash: (await canonicalHash(quads)).hash };
}

/** Every change of the collection after `after`, page by page. */
async function readAll(store: SparqlTripleStore, collection: string, after?: string) {
  const all: ItemChange[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.changes.read(collection, cursor, 50);
    if (page.changes.length === 0) return all;
    all.push(...page.changes);
    cursor = page.next;
  }
}

/**
 * A test on each store with `count` store objects on one metadata graph of the run's own
 * (`count` instances' worth of group commits), closed and dropped afterwards.
 */
function feedTest(
  name: string,
  count: number,
  fn: (stores: SparqlTripleStore[], run: string) => Promise<void>,
): void {
  sparqlStoreTests(name, async (endpoints, target) => {
    const run = `urn:rcs-test:changes:${crypto.randomUUID()}:`;
    const config = {
      metadataGraph: `${run}meta`,
      graphTemplate: `${run}{item}`,
      queryDefaultGraph: target.unionDefaultGraph,
    };
    const stores: SparqlTripleStore[] = [];
    try {
      for (let n = 0; n < count; n++) stores.push(await openCheckedStore(endpoints, config));
      await fn(stores, run);
    } finally {
      for (const store of stores) await store.close();
      await dropGraphsStartingWith(endpoints, run);
    }
  });
}

feedTest(
  "three instances writing at once: every applied write numbered once, no gap, per item in version order",
  3,
  async (stores, run) => {
    const collection = `${run}collection`;
    const items = Array.from({ length: 6 }, (_, n) => `${run}item/${n}`);
    // Each item created once, then updated from every instance at once, some with a
    // stale If-Match (refused: no change).
    for (const uri of items) await stores[0].createItem(await write(collection, uri, "v0"));
    const acknowledged: { uri: string; hash: string }[] = [];
    let refused = 0;
    await Promise.all(stores.flatMap((store, s) =>
      items.map(async (uri, i) => {
        for (let round = 0; round < 4; round++) {
          const next = await write(collection, uri, `s${s} r${round}`);
          try {
            const condition = (round + i + s) % 5 === 0 ? { ifMatch: "stale" } : {};
            await store.replaceItem(next, condition);
            acknowledged.push({ uri, hash: next.hash });
          } catch (error) {
            assert.equal(problemOf(error)?.slug, "precondition-failed", String(error));
            refused++;
          }
        }
      })
    ));
    assert.ok(refused > 0, "some writes were refused");
    await stores[1].deleteItem(collection, items[0]);

    const changes = await readAll(stores[2], collection);
    const expected = items.length + acknowledged.length + 1;
    assert.deepEqual(
      changes.map((change) => change.cursor),
      Array.from({ length: expected }, (_, n) => String(n + 1)),
      "numbered 1, 2, 3, … once each",
    );
    assert.equal(await stores[0].changes.end(collection), String(expected));
    const updates = changes.filter((change) => change.operation === "updated");
    assert.deepEqual(
      updates.map((change) => `${change.item} ${change.etag}`).sort(),
      acknowledged.map((write) => `${write.uri} ${write.hash}`).sort(),
      "each acknowledged update once, no refused one",
    );
    assert.deepEqual(changes.at(-1)!.operation, "deleted");
    assert.equal(changes.at(-1)!.etag, null);
    // Per item, the feed's order is the history's.
    for (const uri of items.slice(1)) {
      const versions = (await stores[0].history.list(collection, uri, { limit: 100 }))
        .reverse().map((version) => version.hash);
      const fed = changes.filter((change) => change.item === uri).map((change) => change.etag);
      assert.deepEqual(fed, versions, uri);
    }

    // Pruning everything stamped before now: the horizon is the last number, an older
    // cursor expired, the end unchanged; a later write goes on from there.
    const removed = await stores[0].changes.prune(new Date(Date.now() + 1000));
    assert.equal(removed, expected);
    await assert.rejects(stores[1].changes.read(collection, "3", 10), (error: unknown) => {
      assert.equal(problemOf(error)?.slug, "cursor-expired");
      return true;
    });
    assert.deepEqual(await stores[1].changes.read(collection, undefined, 10), {
      changes: [],
      next: String(expected),
    });
    await stores[2].replaceItem(await write(collection, items[1], "after pruning"));
    const [after] = (await stores[0].changes.read(collection, String(expected), 10)).changes;
    assert.equal(after.cursor, String(expected + 1));
  },
);

feedTest(
  "first writes to a new collection from three instances at once: numbered once each",
  3,
  async (stores, run) => {
    // Several fresh collections, so that more than one first write races on each head.
    for (let round = 0; round < 4; round++) {
      const collection = `${run}collection/${round}`;
      const created = await Promise.all(stores.flatMap((store, s) =>
        [0, 1].map(async (n) => {
          const uri = `${run}item/${round}/${s}/${n}`;
          await store.createItem(await write(collection, uri, `s${s} n${n}`));
          return uri;
        })
      ));
      const changes = await readAll(stores[0], collection);
      assert.deepEqual(
        changes.map((change) => change.cursor),
        created.map((_, n) => String(n + 1)),
        "numbered 1, 2, 3, … once each",
      );
      assert.deepEqual(
        changes.map((change) => change.item).sort(),
        [...created].sort(),
        "each create once",
      );
    }
  },
);

feedTest(
  "pruning takes the changes stamped before the cutoff, chunk by chunk, and stops at the first one after it",
  1,
  async ([store], run) => {
    const collection = `${run}collection`;
    // More than one pruning chunk (150) of old changes, then a few after the cutoff.
    const OLD = 170;
    await Promise.all(
      Array.from(
        { length: OLD },
        async (_, n) => store.createItem(await write(collection, `${run}old/${n}`, `old ${n}`)),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cutoff = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let n = 0; n < 3; n++) {
      await store.createItem(await write(collection, `${run}new/${n}`, `new ${n}`));
    }
    assert.equal(await store.changes.prune(cutoff), OLD);
    assert.equal(await store.changes.prune(cutoff), 0, "a second pass has nothing to remove");
    await assert.rejects(store.changes.read(collection, "1", 10), (error: unknown) => {
      assert.equal(problemOf(error)?.slug, "cursor-expired");
      return true;
    });
    const kept = await readAll(store, collection);
    assert.deepEqual(kept.map((change) => change.cursor), ["171", "172", "173"]);
    assert.ok(kept.every((change) => change.item.startsWith(`${run}new/`)));
  },
);
