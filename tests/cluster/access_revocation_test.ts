/**
 * A grant changed through one instance's collections API applies on every instance at once
 * (docs/SECURITY.md, "Changes apply at once"): three service processes on one Fuseki and one
 * OpenSearch; a partner token granted a collection reads it through all three; once the
 * revocation is answered by A, the next request on B and on C is refused (404, as for an
 * unknown collection), and a new grant is honoured by the next request too. Several rounds,
 * each read sent right after the change was answered.
 *
 * Needs SERVICE_SPARQL_QUERY_URL, _UPDATE_URL, _GSP_URL and SERVICE_OPENSEARCH_URL.
 */
import { strict as assert } from "node:assert";
import { call, Cluster, clusterEngines } from "../support/cluster.ts";

const ADMIN = "cluster-admin-token-0123456789";
const PARTNER = "cluster-reader-token-0123456789";
const engines = clusterEngines();

Deno.test({
  name:
    "[cluster/access] a revoked grant is refused by the next request on each of three instances",
  ignore: engines === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // The tokens come from the environment: SERVICE_READER_TOKEN is named after its variable.
    const cluster = await Cluster.create(engines!, {
      env: { SERVICE_ADMIN_TOKEN: ADMIN, SERVICE_READER_TOKEN: PARTNER },
    });
    try {
      const instances = await cluster.startInstances(3);
      const [a] = instances;
      const admin = { Authorization: `Bearer ${ADMIN}` };
      const partner = { Authorization: `Bearer ${PARTNER}` };
      const uri = `https://data.example.org/collection/cluster-${cluster.run}-granted`;
      const at = `/api/admin/collections?collection=${encodeURIComponent(uri)}`;
      const grant = (readers: string[]) => ({ readers, editors: [] as string[] });
      const made = await call(`${a.url}/api/admin/collections`, {
        method: "POST",
        headers: { ...admin, "Content-Type": "application/json" },
        body: JSON.stringify({
          workspace: cluster.workspace,
          uri,
          label: "Granted",
          access: grant(["token:SERVICE_READER_TOKEN"]),
        }),
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const item = cluster.itemUri("granted-1");
      const itemPath = `/api/item?collection=${encodeURIComponent(uri)}&item=${
        encodeURIComponent(item)
      }`;
      const put = await call(`${a.url}${itemPath}`, {
        method: "PUT",
        headers: { ...admin, "Content-Type": "application/ld+json" },
        body: JSON.stringify({ "@id": item, "http://purl.org/dc/terms/title": "Granted" }),
      });
      assert.equal(put.status, 201, JSON.stringify(put.body));

      const change = async (readers: string[], through: typeof a) => {
        const answer = await call(`${through.url}${at}`, {
          method: "PUT",
          headers: { ...admin, "Content-Type": "application/json" },
          body: JSON.stringify({ label: "Granted", access: grant(readers) }),
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      };
      for (let round = 0; round < 3; round++) {
        const through = instances[round % 3];
        await change([], through);
        for (const instance of instances) {
          const read = await call(`${instance.url}${itemPath}`, { headers: partner });
          assert.equal(read.status, 404, `round ${round}: revoked, read on ${instance.name}`);
        }
        await change(["token:SERVICE_READER_TOKEN"], through);
        for (const instance of instances) {
          const read = await call(`${instance.url}${itemPath}`, { headers: partner });
          assert.equal(read.status, 200, `round ${round}: granted, read on ${instance.name}`);
        }
      }
      // /sparql follows the grant on every instance too: granted, then revoked.
      const ask = async (instance: typeof a) => {
        // GRAPH ?g: Fuseki's own default graph is not the union of the item graphs.
        const query = encodeURIComponent(`ASK { GRAPH ?g { <${item}> ?p ?o } }`);
        const answer = await call(`${instance.url}/sparql?query=${query}`, {
          headers: { ...partner, Accept: "application/sparql-results+json" },
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return (answer.body as { boolean: boolean }).boolean;
      };
      for (const instance of instances) assert.equal(await ask(instance), true, instance.name);
      await change([], a);
      for (const instance of instances) assert.equal(await ask(instance), false, instance.name);
    } finally {
      await cluster.close();
    }
  },
});
