/**
 * Group commit on both stores (the embedded SQLite file, and the SPARQL store on each real
 * store: `[fuseki] …`, `[virtuoso] …`): writes submitted while a commit is in flight are
 * committed as one group, and a write of the group that its store refuses (stale If-Match,
 * duplicate create, missing item, a term that is not item data) fails alone while every
 * other write of the group is stored and acknowledged.
 *
 * The first write goes alone (nothing is in flight); every write submitted in the same turn
 * after it queues behind its commit, so the second group holds exactly those.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import type { ItemRecord, TripleStore } from "../../src/store/triple_store.ts";
import type { ItemHistory } from "../../src/store/item_history.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";
import {
  dropGraphsStartingWith,
  openCheckedStore,
  sparqlStoreTests,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad, variable, blankNode } = DataFactory;

const COLLECTION = "https://data.example.org/collection/group-commit";
const OTHER_COLLECTION = "https://data.example.org/collection/group-commit-other";

interface GroupStore extends TripleStore {
  readonly groupCommitStats: { groups: number; writes: number; largest: number };
}

/** An item of a few triples, one of them through a blank node (labels must not collide). */
function graph(uri: string, version: string): Quad[] {
  const node = blankNode("author");
  return [
    quad(namedNode(uri), namedNode("http://purl.org/dc/terms/title"), literal(version)),
    quad(namedNode(uri), namedNode("http://purl.org/dc/terms/creator"), node),
    quad(node, namedNode("http://xmlns.com/foaf/0.1/name"), literal(`author of ${version}`)),
  ];
}

async function write(uri: string, version: string, collection = COLLECTION) {
  const quads = graph(uri, version);
  return { collection, uri, quads, hash: (await canonicalHash(quads)).hash };
}

async function titleOf(
  store: TripleStore,
  uri: string,
  collection = COLLECTION,
): Promise<string | undefined> {
  try {
    const read = await store.readItem(collection, uri);
    const quads: Quad[] = [];
    for await (const q of read.quads) quads.push(q);
    assert.equal(quads.length, 3, `${uri} is whole`);
    return quads.find((q) => q.predicate.value.endsWith("/title"))?.object.value;
  } catch (error) {
    if (asProblem(error)?.status === 404) return undefined;
    throw error;
  }
}

type Settled = { value: unknown } | { status: number; slug: string };

function settle(work: Promise<unknown>): Promise<Settled> {
  return work.then(
    (value) => ({ value }),
    (thrown) => {
      const error = asProblem(thrown);
      if (!(error instanceof ProblemError)) throw thrown;
      return { status: error.status, slug: error.slug };
    },
  );
}

async function oneGroupWithRefusals(store: GroupStore, run: string): Promise<void> {
  const uri = (name: string) => `https://data.example.org/id/group-commit/${run}/${name}`;
  // Items the group will find: one to update, one to update with a stale ETag, one to
  // delete, one that exists already, one of the same IRI in another collection.
  const existing: Record<string, ItemRecord> = {};
  for (const name of ["update", "stale", "delete", "taken"]) {
    existing[name] = await store.createItem(await write(uri(name), "v1"));
  }
  await store.createItem(await write(uri("elsewhere"), "v1", OTHER_COLLECTION));
  const before = { ...store.groupCommitStats };

  const badTerm = await write(uri("bad-term"), "v1");
  badTerm.quads.push(
    quad(namedNode(uri("bad-term")), namedNode("https://ex.org/p"), variable("x")),
  );
  const writes = [
    // The first write is in flight alone while all the others queue behind it.
    write(uri("lead"), "v1").then((w) => store.createItem(w)),
    write(uri("new-1"), "v1").then((w) => store.createItem(w)),
    write(uri("taken"), "v2").then((w) => store.createItem(w)), // 409: exists
    write(uri("update"), "v2").then((w) => store.replaceItem(w, { ifMatch: existing.update.hash })),
    write(uri("stale"), "v2").then((w) => store.replaceItem(w, { ifMatch: "0".repeat(64) })), // 412
    store.deleteItem(COLLECTION, uri("delete")),
    store.deleteItem(COLLECTION, uri("missing")), // 404
    // The same IRI as another collection's item: an item of its own, in a graph of its own.
    write(uri("elsewhere"), "v2").then((w) => store.createItem(w)),
    store.createItem(badTerm), // 400: a variable is not item data
    write(uri("new-2"), "v1").then((w) => store.createItem(w)),
  ];
  const outcomes = await Promise.all(writes.map(settle));
  const statuses = outcomes.map((o) => "status" in o ? `${o.status} ${o.slug}` : "ok");
  assert.deepEqual(statuses, [
    "ok",
    "ok",
    "409 item-exists",
    "ok",
    "412 precondition-failed",
    "ok",
    "404 item-not-found",
    "ok",
    "400 invalid-term",
    "ok",
  ]);
  const stats = store.groupCommitStats;
  // The writes the store was asked for (the invalid term may be refused before queueing).
  const submitted = stats.writes - before.writes;
  assert.ok(submitted >= 9, `submitted ${submitted}`);
  assert.ok(stats.groups - before.groups <= 3, `${stats.groups - before.groups} groups`);
  assert.ok(stats.largest >= 7, `largest group ${stats.largest}`);

  // Everything acknowledged is stored; nothing refused left a trace.
  assert.equal(await titleOf(store, uri("lead")), "v1");
  assert.equal(await titleOf(store, uri("new-1")), "v1");
  assert.equal(await titleOf(store, uri("new-2")), "v1");
  assert.equal(await titleOf(store, uri("update")), "v2");
  assert.equal(await titleOf(store, uri("stale")), "v1");
  assert.equal(await titleOf(store, uri("taken")), "v1");
  assert.equal(await titleOf(store, uri("delete")), undefined);
  assert.equal(await titleOf(store, uri("bad-term")), undefined);
  assert.equal(
    (await store.getItem(OTHER_COLLECTION, uri("elsewhere")))?.collection,
    OTHER_COLLECTION,
  );
  assert.equal(await titleOf(store, uri("elsewhere")), "v2");
  assert.equal(await titleOf(store, uri("elsewhere"), OTHER_COLLECTION), "v1");
  const updated = await store.getItem(COLLECTION, uri("update"));
  assert.equal(updated?.hash, (await write(uri("update"), "v2")).hash);
}

/**
 * After {@link oneGroupWithRefusals}: every acknowledged write of the group has exactly one
 * version in the item's history, written with the write itself (the embedded store's
 * savepoint, the SPARQL store's guarded operations); a refused one has none.
 */
async function versionsPerWrite(history: ItemHistory, run: string): Promise<void> {
  const uri = (name: string) => `https://data.example.org/id/group-commit/${run}/${name}`;
  const operations = async (name: string, collection = COLLECTION) =>
    (await history.list(collection, uri(name), { limit: 10 })).map((v) => v.operation).reverse();
  const expected: Record<string, string[]> = {
    lead: ["create"],
    "new-1": ["create"],
    "new-2": ["create"],
    taken: ["create"], // the second create was refused
    update: ["create", "update"],
    stale: ["create"], // the update was refused
    delete: ["create", "delete"],
    missing: [],
    "bad-term": [],
    elsewhere: ["create"],
  };
  for (const [name, wanted] of Object.entries(expected)) {
    assert.deepEqual(await operations(name), wanted, name);
  }
  assert.deepEqual(await operations("elsewhere", OTHER_COLLECTION), ["create"]);
}

Deno.test("group commit, embedded store: one write refused, the rest of its group stored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-group-" });
  const db = openLocalDatabase(dir);
  const store = new EmbeddedTripleStore(db, `${dir}/${LOCAL_DB_FILE}`, GROUP_COMMIT);
  try {
    const run = crypto.randomUUID();
    await oneGroupWithRefusals(store, run);
    await versionsPerWrite(store.history, run);
    // Every acknowledged write left its outbox entry; refused ones left none.
    const entries = (db.prepare("SELECT uri FROM index_outbox").all() as { uri: string }[])
      .map((row) => row.uri.split("/").pop());
    for (const name of ["lead", "new-1", "new-2", "update", "delete", "elsewhere"]) {
      assert.ok(entries.includes(name), `outbox entry of ${name}`);
    }
    for (const name of ["taken", "stale", "missing", "bad-term"]) {
      assert.equal(
        entries.filter((e) => e === name).length,
        name === "taken" ? 1 : name === "stale" ? 1 : 0,
      );
    }
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

sparqlStoreTests(
  "group commit, SPARQL store: one write refused, the rest of its group stored",
  async (endpoints) => {
    const run = crypto.randomUUID();
    const store = await openCheckedStore(endpoints, {
      metadataGraph: `urn:rcs-test:group-commit:${run}:meta`,
      graphTemplate: `urn:rcs-test:group-commit:${run}:{item}`,
    });
    try {
      await oneGroupWithRefusals(store, run);
      await versionsPerWrite(store.history, run);
      const claim = await store.outbox.claim(100, 60_000);
      const names = claim.entries.map((entry) => entry.uri.split("/").pop());
      for (const name of ["lead", "new-1", "new-2", "update", "delete"]) {
        assert.ok(names.includes(name), `outbox entry of ${name}`);
      }
      for (const name of ["missing", "bad-term"]) assert.ok(!names.includes(name), name);
    } finally {
      // The run's own graphs: drop them all.
      await dropGraphsStartingWith(endpoints, `urn:rcs-test:group-commit:${run}:`);
      await store.close();
    }
  },
);
