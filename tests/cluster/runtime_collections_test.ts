/**
 * Acceptance: a collection made through the admin API of one instance is usable on the two
 * others at once (no restart, no wait for their poll: an instance asked for a collection it
 * does not know reads the catalog again), its items are searchable from every instance, a
 * change of its settings reaches every instance, and it is still there for instances
 * started afterwards (the catalog lives in the shared store, not in any instance).
 *
 * Needs SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL and SERVICE_OPENSEARCH_URL; runs on
 * Virtuoso as well when SERVICE_VIRTUOSO_* are set (scripts/virtuoso.sh).
 */
import { strict as assert } from "node:assert";
import {
  call,
  Cluster,
  clusterEngines,
  sleep,
  virtuosoClusterEngines,
} from "../support/cluster.ts";

const JSON_TYPE = { "Content-Type": "application/json" };

const stores = [
  { label: "", engines: clusterEngines() },
  ...(virtuosoClusterEngines() ? [{ label: "virtuoso/", engines: virtuosoClusterEngines() }] : []),
];

for (const { label, engines } of stores) {
  Deno.test({
    name:
      `[cluster/${label}catalog] a collection made on one instance is usable on the others at once`,
    ignore: engines === undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const cluster = await Cluster.create(engines!);
      try {
        const [a, b, c] = await cluster.startInstances(3);
        const uri = `https://data.example.org/collection/cluster-${cluster.run}-made`;
        const at = `/api/admin/collections?collection=${encodeURIComponent(uri)}`;
        const made = await call(`${a.url}/api/admin/collections`, {
          method: "POST",
          headers: JSON_TYPE,
          body: JSON.stringify({ workspace: cluster.workspace, uri, label: "Made on A" }),
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));

        // At once on B and C: an item written through B, read through C.
        const item = cluster.itemUri("made-1");
        const path = (uri2: string) =>
          `/api/item?collection=${encodeURIComponent(uri)}&item=${encodeURIComponent(uri2)}`;
        const put = await call(`${b.url}${path(item)}`, {
          method: "PUT",
          headers: { "Content-Type": "application/ld+json" },
          body: JSON.stringify({ "@id": item, "http://purl.org/dc/terms/title": "Quokka island" }),
        });
        assert.equal(put.status, 201, JSON.stringify(put.body));
        const read = await fetch(`${c.url}${path(item)}`);
        assert.equal(read.status, 200, await read.clone().text());
        await read.body?.cancel();

        // Searchable from every instance once the outbox has applied the write.
        for (const instance of [a, b, c]) {
          let hits: string[] = [];
          for (let attempt = 0; attempt < 50 && hits.length === 0; attempt++) {
            const answer = await call(
              `${instance.url}/api/search?collection=${encodeURIComponent(uri)}&q=quokka`,
            );
            hits = ((answer.body as { hits?: { uri: string }[] }).hits ?? []).map((hit) => hit.uri);
            if (hits.length === 0) await sleep(200);
          }
          assert.deepEqual(hits, [item], `search on ${instance.name}`);
        }

        // A change made on C reaches A within its poll.
        const renamed = await call(`${c.url}${at}`, {
          method: "PUT",
          headers: JSON_TYPE,
          body: JSON.stringify({ label: "Renamed on C" }),
        });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        let name = "";
        for (let attempt = 0; attempt < 30 && name !== "Renamed on C"; attempt++) {
          name = ((await call(`${a.url}${at}`)).body as { name: string }).name;
          if (name !== "Renamed on C") await sleep(200);
        }
        assert.equal(name, "Renamed on C");

        // B and C stop; the instances that replace them serve the collection from the start.
        await cluster.kill(b);
        await cluster.kill(c);
        const [d, e] = await cluster.startInstances(2);
        for (const instance of [d, e]) {
          const listed = await call(`${instance.url}/api/workspaces`);
          const collections = (listed.body as { uri: string; collections: { uri: string }[] }[])
            .flatMap((workspace) => workspace.collections.map((entry) => entry.uri));
          assert.ok(collections.includes(uri), `${instance.name} lists the collection`);
          const again = await fetch(`${instance.url}${path(item)}`);
          assert.equal(again.status, 200, `${instance.name} reads the item`);
          await again.body?.cancel();
        }
      } catch (error) {
        console.error(cluster.logTail());
        throw error;
      } finally {
        await cluster.close();
      }
    },
  });
}
