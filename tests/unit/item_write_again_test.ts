/**
 * A create made again after the store could not confirm the first (`write-outcome-unknown`,
 * `WriteOptions.again`): an item that already holds this very graph counts as created, one
 * holding another graph is still `item-exists`, and without `again` a duplicate create is
 * always refused. On the real embedded store and catalog.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { parseConfigText } from "../../src/config/load.ts";
import { Catalog } from "../../src/catalog/catalog.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { ItemService } from "../../src/items/item_service.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;
const COLLECTION = "https://data.example.org/collection/again";
const YAML = `
workspaces:
  - uri: https://data.example.org/workspace/again
    name: Again
    collections:
      - uri: ${COLLECTION}
        name: Again
        index: again
`;

function titled(uri: string, title: string): Quad[] {
  return [quad(namedNode(uri), namedNode("http://purl.org/dc/terms/title"), literal(title))];
}

Deno.test("a create made again answers with the item when it holds the same graph", async () => {
  const config = parseConfigText(YAML, "test", () => undefined);
  const db = openLocalDatabase(":memory:");
  const store = new EmbeddedTripleStore(db, undefined, GROUP_COMMIT);
  const items = new ItemService(
    store,
    new Catalog(config.workspaces),
    async (quads) => (await canonicalHash(quads)).hash,
  );
  try {
    const uri = "https://data.example.org/id/again/1";
    const first = await items.create(COLLECTION, uri, titled(uri, "one"));

    // The first write was applied; the caller did not learn it and writes the same again.
    const again = await items.create(COLLECTION, uri, titled(uri, "one"), { again: true });
    assert.equal(again.hash, first.hash);
    assert.equal(again.created, first.created, "the item is the first write's, not a new one");

    // Another graph under the same URI is someone else's item: still refused.
    await assert.rejects(
      items.create(COLLECTION, uri, titled(uri, "two"), { again: true }),
      (error) => isProblem(error, "item-exists"),
    );
    // A first create of an existing item is refused even with the same graph.
    await assert.rejects(
      items.create(COLLECTION, uri, titled(uri, "one")),
      (error) => isProblem(error, "item-exists"),
    );
    assert.equal((await store.getItem(COLLECTION, uri))?.hash, first.hash);
  } finally {
    await store.close();
    db.close();
  }
});
