/**
 * Group commit through the API, on both stores: many concurrent writes, among them a SHACL
 * violation, a duplicate create, a stale If-Match and a delete of a missing item. Only those
 * fail, each with its own status; every other write is acknowledged and stored. (That
 * writes queued behind a commit in flight share one group is shown deterministically at the
 * store level, tests/integration/group_commit_test.ts.)
 */
import { strict as assert } from "node:assert";
import { startTestService, storeBackends } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";

const COLLECTION = "https://data.example.org/collection/grouped";
const SHAPES = `@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix ex: <https://ex.example.org/> .

ex:BookShape a sh:NodeShape ;
  sh:targetClass ex:Book ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ] .
`;
const VALID_WRITERS = 24;

function yaml(shapesPath: string): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}workspaces:
  - uri: https://data.example.org/workspace/grouped
    name: Grouped
    collections:
      - uri: ${COLLECTION}
        name: Grouped
        index: grouped
        shapes: ${JSON.stringify(shapesPath)}
`;
}

function book(uri: string, title?: string): string {
  const titled = title === undefined ? "" : ` ;\n  <http://purl.org/dc/terms/title> "${title}"`;
  return `<${uri}> a <https://ex.example.org/Book>${titled} .\n`;
}

const query = (uri: string) =>
  `collection=${encodeURIComponent(COLLECTION)}&item=${encodeURIComponent(uri)}`;

for (const backend of storeBackends()) {
  Deno.test({
    name: `[group-commit/${backend.name}] one refused write of a burst fails alone`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "rcs-grouped-" });
      await Deno.writeTextFile(`${dir}/shapes.ttl`, SHAPES);
      const service = await startTestService({ yaml: yaml(`${dir}/shapes.ttl`), env: backend.env });
      try {
        const base = `https://data.example.org/id/grouped/${crypto.randomUUID()}`;
        const send = (method: string, uri: string, body?: string, headers = {}) =>
          service.fetch(`/api/item?${query(uri)}`, {
            method,
            headers: body ? { "Content-Type": "text/turtle", ...headers } : headers,
            body,
          });
        const existing = await send("PUT", `${base}/existing`, book(`${base}/existing`, "v1"));
        assert.equal(existing.status, 201);
        const etag = existing.headers.get("ETag")!;
        await existing.body?.cancel();
        const updated = await send("PUT", `${base}/updated`, book(`${base}/updated`, "v1"));
        assert.equal(updated.status, 201);
        const updatedEtag = updated.headers.get("ETag")!;
        await updated.body?.cancel();

        const burst: { name: string; expect: number; request: () => Promise<Response> }[] = [];
        for (let i = 0; i < VALID_WRITERS; i++) {
          const uri = `${base}/new-${i}`;
          burst.push({
            name: `new-${i}`,
            expect: 201,
            request: () => send("PUT", uri, book(uri, `t${i}`)),
          });
        }
        burst.splice(3, 0, {
          name: "shacl violation",
          expect: 422,
          request: () => send("PUT", `${base}/untitled`, book(`${base}/untitled`)),
        });
        burst.splice(7, 0, {
          name: "duplicate create",
          expect: 409,
          request: () => send("PUT", `${base}/existing`, book(`${base}/existing`, "v2")),
        });
        burst.splice(11, 0, {
          name: "stale If-Match",
          expect: 412,
          request: () =>
            send("POST", `${base}/existing`, book(`${base}/existing`, "v3"), {
              "If-Match": `"${"0".repeat(64)}"`,
            }),
        });
        burst.splice(15, 0, {
          name: "current If-Match",
          expect: 204,
          request: () =>
            send("POST", `${base}/updated`, book(`${base}/updated`, "v2"), {
              "If-Match": updatedEtag,
            }),
        });
        burst.splice(19, 0, {
          name: "delete of a missing item",
          expect: 404,
          request: () => send("DELETE", `${base}/missing`),
        });
        const responses = await Promise.all(burst.map((write) => write.request()));
        const statuses = await Promise.all(responses.map(async (response, i) => {
          const text = await response.text();
          return `${burst[i].name}: ${response.status}${response.status >= 400 ? ` ${text}` : ""}`;
        }));
        assert.deepEqual(
          statuses.map((line) => line.replace(/ \{.*$/, "")),
          burst.map((write) => `${write.name}: ${write.expect}`),
          statuses.join("\n"),
        );

        // Every acknowledged write is stored; the refused ones changed nothing.
        for (let i = 0; i < VALID_WRITERS; i++) {
          const read = await service.fetch(`/api/item?${query(`${base}/new-${i}`)}`, {
            headers: { Accept: "application/n-triples" },
          });
          assert.equal(read.status, 200, `new-${i}`);
          assert.match(await read.text(), new RegExp(`"t${i}"`));
        }
        const kept = await service.fetch(`/api/item?${query(`${base}/existing`)}`);
        assert.equal(kept.headers.get("ETag"), etag);
        await kept.body?.cancel();
        const replaced = await service.fetch(`/api/item?${query(`${base}/updated`)}`, {
          headers: { Accept: "application/n-triples" },
        });
        assert.match(await replaced.text(), /"v2"/);
        const untitled = await service.fetch(`/api/item?${query(`${base}/untitled`)}`);
        assert.equal(untitled.status, 404);
        await untitled.body?.cancel();
      } finally {
        await service.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
