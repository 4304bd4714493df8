/**
 * `TripleStore.readItem` on both stores (the SPARQL one on each real store: `[fuseki] …`,
 * `[virtuoso] …`): the record and the quads it returns are one
 * version, even when a write lands after the read returned and before its quads are
 * iterated (what an HTTP response does while other requests run). On the embedded store
 * this covers a small item (read at once), a large one paged from a snapshot of a file
 * database, and a large one of an in-memory database (no snapshot connection: read at once).
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { DataFactory, type Quad } from "n3";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import type { TripleStore } from "../../src/store/triple_store.ts";
import { problemOf as asProblem } from "../../src/http/problem.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";
import { openCheckedStore, sparqlStoreTests } from "../support/sparql_stores.ts";

const { namedNode, literal, quad } = DataFactory;
const RUN = `https://test.example.org/read-item/${crypto.randomUUID()}`;
const COLLECTION = `${RUN}/collection`;
/** Over the embedded store's single-statement limit (20,000), so it is paged. */
const LARGE = 25_000;

/** Version `version` of an item: every literal names the version; several subjects. */
function version(uri: string, version: number, triples: number): Quad[] {
  return Array.from({ length: triples }, (_, n) =>
    quad(
      namedNode(`${uri}#part-${n % 7}`),
      namedNode(`https://ex.example.org/p${n}`),
      literal(`version ${version} value ${n}`),
    ));
}

/** Reads the item, writes a new version, then iterates the read: it must be the old one. */
async function checkReadIsOneVersion(store: TripleStore, name: string, triples: number) {
  const uri = `${RUN}/${store.kind}/${name}`;
  await store.createItem({
    collection: COLLECTION,
    uri,
    quads: version(uri, 1, triples),
    hash: "v1",
  });
  const read = await store.readItem(COLLECTION, uri);
  await store.replaceItem({
    collection: COLLECTION,
    uri,
    quads: version(uri, 2, triples + 1),
    hash: "v2",
  });
  assert.equal(read.record.hash, "v1");
  assert.equal(read.record.tripleCount, triples);
  const versions = new Set<string>();
  const subjects: string[] = [];
  let count = 0;
  for await (const q of read.quads) {
    count++;
    versions.add(q.object.value.split(" value ")[0]);
    if (subjects.at(-1) !== q.subject.value) subjects.push(q.subject.value);
  }
  assert.equal(count, triples);
  assert.deepEqual([...versions], ["version 1"], "the quads are the record's version");
  assert.equal(new Set(subjects).size, subjects.length, "each subject's triples together");

  const again = await store.readItem(COLLECTION, uri);
  assert.equal(again.record.hash, "v2");
  let newCount = 0;
  for await (const _ of again.quads) newCount++;
  assert.equal(newCount, triples + 1);

  await assert.rejects(store.readItem(`${RUN}/other`, uri), (error: unknown) => {
    assert.ok(asProblem(error)?.slug === "item-not-found");
    return true;
  });
}

Deno.test("readItem on the embedded store: small and large items are one version", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-read-item-" });
  const db = openLocalDatabase(dir);
  const store = new EmbeddedTripleStore(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  try {
    await checkReadIsOneVersion(store, "small", 40);
    await checkReadIsOneVersion(store, "large", LARGE);
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readItem on an in-memory embedded store: a large item is one version", async () => {
  const db = openLocalDatabase(":memory:");
  const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  try {
    await checkReadIsOneVersion(store, "large", LARGE);
  } finally {
    await store.close();
    db.close();
  }
});

sparqlStoreTests("readItem on the SPARQL store: one version", async (endpoints) => {
  const store = await openCheckedStore(endpoints);
  try {
    await checkReadIsOneVersion(store, "small", 40);
  } finally {
    await store.close();
  }
});
