/**
 * `GET /api/item/collections` over real HTTP on each store backend: an IRI held by another
 * collection is answered with that collection, an IRI no collection holds (described in
 * another item's graph, or not at all) with none, and an IRI of a collection the caller may
 * not read with none, exactly as if it did not exist; the refusals name the parameter.
 */
import { strict as assert } from "node:assert";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";
import { expectProblem } from "../support/problems.ts";

const A = "https://data.example.org/collection/holders-a";
const B = "https://data.example.org/collection/holders-b";
const SECRET = "https://data.example.org/collection/holders-secret";
const ADMIN_TOKEN = "holders-admin-token-0123456789";
const READER_TOKEN = "holders-reader-token-0123456789";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";

/** A and B are open to every reader; SECRET to nobody but the admin. */
const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}  security:
    tokens:
      - { name: admin, token: "${ADMIN_TOKEN}", role: admin }
      - { name: reader, token: "${READER_TOKEN}", role: reader }
workspaces:
  - uri: https://data.example.org/workspace/holders
    name: Holders
    collections:
      - uri: ${A}
        name: Holders A
        index: holders-a
      - uri: ${B}
        name: Holders B
        index: holders-b
      - uri: ${SECRET}
        name: Holders secret
        index: holders-secret
        access: { readers: [], editors: [] }
`;

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const reader = { Authorization: `Bearer ${READER_TOKEN}` };

async function put(service: TestService, collection: string, uri: string, turtle: string) {
  const query = new URLSearchParams({ collection, item: uri });
  const response = await service.fetch(`/api/item?${query}`, {
    method: "PUT",
    headers: { ...admin, "Content-Type": "text/turtle" },
    body: turtle,
  });
  assert.equal(response.status, 201, await response.text());
}

async function holders(
  service: TestService,
  headers: Record<string, string>,
  iris: string[],
): Promise<Record<string, string[]>> {
  const query = new URLSearchParams(iris.map((iri) => ["item", iri]));
  const response = await service.fetch(`/api/item/collections?${query}`, { headers });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).collections;
}

for (const backend of storeBackends({ allStores: true })) {
  Deno.test({
    name: `[item-collections/${backend.name}] where an IRI's item is, as the caller may see it`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const service = await startTestService({ yaml: YAML, env: backend.env });
      try {
        const base = `https://data.example.org/id/holders-${crypto.randomUUID()}`;
        const [inA, inB, secret, term, external] = ["in-a", "in-b", "secret", "term", "ext"]
          .map((name) => `${base}/${name}`);
        await put(
          service,
          A,
          inA,
          `<${inA}> <${RDFS}seeAlso> <${inB}>, <${secret}>, <${term}>, <${external}> .`,
        );
        // B's item describes \`term\` too: a subject of B's graph, but no item of its own.
        await put(
          service,
          B,
          inB,
          `<${inB}> <${RDFS}label> "In B" ; <${RDFS}seeAlso> <${term}> .
           <${term}> <${RDFS}label> "A term" .`,
        );
        await put(service, SECRET, secret, `<${secret}> <${RDFS}label> "Secret" .`);
        const all = [inA, inB, secret, term, external];

        await t.step("each IRI with the collection that holds it, or none", async () => {
          assert.deepEqual(await holders(service, reader, all), {
            [inA]: [A],
            [inB]: [B],
            [secret]: [],
            [term]: [],
            [external]: [],
          });
        });

        await t.step("a collection the caller may not read is never named", async () => {
          // The admin may read SECRET: the item is there; the reader is told nothing of it.
          assert.deepEqual(await holders(service, admin, [secret]), { [secret]: [SECRET] });
          assert.deepEqual(await holders(service, reader, [secret, external]), {
            [secret]: [],
            [external]: [],
          });
        });

        await t.step("refusals name the parameter", async () => {
          await expectProblem(
            await service.fetch("/api/item/collections", { headers: reader }),
            400,
            "missing-parameter",
          );
          await expectProblem(
            await service.fetch("/api/item/collections?item=not%20an%20iri", { headers: reader }),
            400,
            "invalid-iri",
          );
          const many = new URLSearchParams();
          for (let n = 0; n <= 200; n++) many.append("item", `urn:x:${n}`);
          const tooMany = await expectProblem(
            await service.fetch(`/api/item/collections?${many}`, { headers: reader }),
            400,
            "invalid-parameter",
          );
          assert.deepEqual(tooMany.errors, [{ path: "item", message: "more than 200" }]);
          await expectProblem(
            await service.fetch(`/api/item/collections?item=${inA}`),
            401,
            "unauthorized",
          );
        });
      } finally {
        await service.close();
      }
    },
  });
}
