/**
 * The embedded outbox ends a claim's lease when its entries are completed or released, also
 * when the disk refuses the bookkeeping (a full disk, here a trigger that aborts the same
 * statements): the entries are claimed again at once, not after the lease. CI once waited
 * out 30 s leases after a full disk was freed, and the index lagged that long.
 */
import { strict as assert } from "node:assert";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const COLLECTION = "https://data.example.org/collection/lease";
const LEASE_MS = 60_000;

Deno.test("embedded outbox: a failed complete or release still ends the lease", async () => {
  const db = openLocalDatabase(":memory:");
  const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  try {
    await store.outbox.enqueue(COLLECTION, [`${COLLECTION}/a`, `${COLLECTION}/b`]);
    db.exec(`CREATE TRIGGER full_on_delete BEFORE DELETE ON index_outbox
               BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
             CREATE TRIGGER full_on_update BEFORE UPDATE ON index_outbox
               BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`);

    const first = await store.outbox.claim(10, LEASE_MS);
    assert.equal(first.entries.length, 2);
    assert.equal((await store.outbox.claim(10, LEASE_MS)).entries.length, 0, "leased");
    const [a, b] = first.entries.map((entry) => entry.id);
    await assert.rejects(store.outbox.complete([a]), /full/);
    await assert.rejects(store.outbox.release([b]), /full/);
    // Both are claimable again now: the complete did not happen, so `a` is applied again.
    const again = await store.outbox.claim(10, LEASE_MS);
    assert.deepEqual(again.entries.map((entry) => entry.id).sort(), [a, b].sort());

    db.exec("DROP TRIGGER full_on_delete; DROP TRIGGER full_on_update;");
    await store.outbox.complete([a, b]);
    assert.equal(await store.outbox.backlog(), 0);
  } finally {
    await store.close();
    db.close();
  }
});
