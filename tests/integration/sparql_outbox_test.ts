/**
 * The SPARQL store's index outbox entries against a real Fuseki: the outbox worker may
 * take a write's entry while the update is still in flight, and read the item as it was;
 * the write must then leave another entry, so that the index is brought in step after all.
 *
 * The race is made deterministic with a forwarding server in front of the update endpoint
 * that, like a worker finishing a batch, removes every outbox entry before passing the
 * update on.
 */
import { strict as assert } from "node:assert";
import { DataFactory } from "n3";
import { openLocalDatabase } from "../../src/store/local_db.ts";
import { SparqlTripleStore } from "../../src/store/sparql.ts";
import { SPARQL_SUITE_SKIPPED, sparqlEndpointsFromEnv } from "../support/fuseki.ts";

const endpoints = sparqlEndpointsFromEnv();
if (!endpoints) console.log(SPARQL_SUITE_SKIPPED);
const { namedNode, literal, quad } = DataFactory;

Deno.test({
  name: "SPARQL store: a write's outbox entry outlives a worker that took the first one",
  ignore: !endpoints,
  fn: async () => {
    const db = openLocalDatabase(":memory:");
    const outbox = () =>
      (db.prepare("SELECT count(*) AS n FROM index_outbox").get() as { n: number }).n;
    let updates = 0;
    const forwarder = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      updates++;
      db.exec("DELETE FROM index_outbox"); // the worker took (and completed) the entry
      return fetch(endpoints!.updateUrl, {
        method: "POST",
        headers: req.headers,
        body: req.body,
      });
    });
    const store = new SparqlTripleStore({
      ...endpoints!,
      updateUrl: `http://127.0.0.1:${forwarder.addr.port}/update`,
      graphTemplate: `urn:rcs-test:outbox-${crypto.randomUUID()}:{item}`,
      metadataGraph: `urn:rcs-test:outbox-${crypto.randomUUID()}:meta`,
      timeoutMs: 30_000,
      retries: 0,
    }, db);
    try {
      const collection = "https://data.example.org/collection/c";
      const uri = `https://data.example.org/id/${crypto.randomUUID()}`;
      const write = (title: string) => ({
        collection,
        uri,
        quads: [quad(namedNode(uri), namedNode("urn:p:title"), literal(title))],
        hash: title,
      });
      await store.createItem(write("one"));
      assert.equal(updates, 1);
      assert.equal(outbox(), 1, "an entry enqueued after the create was applied");
      await store.replaceItem(write("two"));
      assert.equal(outbox(), 1, "and after the replace");
      await store.deleteItem(collection, uri);
      assert.equal(outbox(), 1, "and after the delete");
    } finally {
      await store.close();
      await forwarder.shutdown();
      db.close();
    }
  },
});
