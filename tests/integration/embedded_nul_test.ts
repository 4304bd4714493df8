/**
 * A literal holding U+0000 (RDF allows it) is read back whole by the embedded store, by
 * every read path: node:sqlite reads a TEXT column only up to its first NUL, so such
 * values are read as BLOBs (src/store_embedded/term_ids.ts). Read without the item cache.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { DataFactory } from "n3";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;
const COLLECTION = "https://data.example.org/collection/nul";

Deno.test("literals with U+0000 survive the embedded store's reads", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-nul-" });
  const db = openLocalDatabase(dir);
  const store = new EmbeddedTripleStore(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  try {
    const uri = "https://data.example.org/id/nul";
    const values = ["x\u0000y", "\u0000", "plain", "tab\there"];
    const quads = values.map((value, n) =>
      quad(namedNode(uri), namedNode(`urn:p:${n}`), literal(value, n === 1 ? "en" : undefined))
    );
    await store.createItem({ collection: COLLECTION, uri, quads, hash: "h" });
    const expected = values.sort();
    const objects = (read: { object: { value: string } }[]) =>
      read.map((q) => q.object.value).sort();
    const read = [];
    for await (const each of (await store.readItem(COLLECTION, uri)).quads) read.push(each);
    assert.deepEqual(objects(read), expected);
    assert.deepEqual(objects((await store.readItemGraphs(COLLECTION, [uri]))[0].quads), expected);
    const streamed = [];
    for await (const each of store.collectionQuads(COLLECTION)) streamed.push(each);
    assert.deepEqual(objects(streamed), expected);
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
