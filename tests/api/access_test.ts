/**
 * Access per collection (docs/SECURITY.md) over real HTTP, with tokens issued by a real
 * OpenID provider (npm `oidc-provider`, tests/support/oidc_provider.ts), on the embedded
 * default, on Fuseki + OpenSearch, and (the store's part) on Virtuoso.
 *
 * alice (group team-a) may read collection A only; bob (team-a-editors) edits A; carol has
 * no grant; the admin token does everything. B holds a word A never does, and a triple that
 * one of A's items states too.
 */
import { strict as assert } from "node:assert";
import { startTestService, type TestService } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { type BackendPair, SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";
import { type OidcTestProvider, startOidcProvider } from "../support/oidc_provider.ts";

const A = "https://data.example.org/collection/team-a";
const B = "https://data.example.org/collection/team-b";
const OPEN = "https://data.example.org/collection/open";
const WORKSPACE = "https://data.example.org/workspace/access";
const ADMIN_TOKEN = "access-admin-token-0123456789";
const READER_TOKEN = "access-reader-token-0123456789";
const AUDIENCE = "https://rdf-content-service.example/api";
const DCT = "http://purl.org/dc/terms/";
const SHARED_CONCEPT = "https://data.example.org/concept/shared";

const IDENTITIES = [
  { id: "alice", groups: ["team-a"] },
  { id: "bob", groups: ["team-a-editors"] },
  { id: "carol", groups: [] },
  { id: "dave", groups: ["team-b"] },
];

function yaml(provider: OidcTestProvider): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}  security:
    tokens:
      - { name: admin, token: "${ADMIN_TOKEN}", role: admin }
      - { name: reader, token: "${READER_TOKEN}", role: reader }
    oidc:
      issuer: ${provider.issuer}
      audience: ${AUDIENCE}
      jwksUrl: ${provider.jwksUrl}
      groupsClaim: realm_access.roles
      clockSkewSeconds: 0
workspaces:
  - uri: ${WORKSPACE}
    name: Access
    collections:
      - uri: ${A}
        name: Team A
        index: team-a
        access:
          readers: [group:team-a]
          editors: [group:team-a-editors]
      - uri: ${B}
        name: Team B
        index: team-b
        access:
          readers: [group:team-b]
      - uri: ${OPEN}
        name: Open
        index: open
`;
}

const itemOf = (collection: string, n: number) =>
  `${collection.replace("/collection/", "/id/")}/item-${n}`;

/**
 * Each item: 3 triples; item 1 of A and of B also label the shared concept alike (the same
 * triple in two collections). A alone: 3 + 3 + 1 distinct triples.
 */
function itemBody(collection: string, n: number): string {
  const uri = itemOf(collection, n);
  const word = collection === B ? "zebrafinch" : "apple";
  const shared = n === 1
    ? `<${SHARED_CONCEPT}> <http://www.w3.org/2000/01/rdf-schema#label> "Shared" .`
    : "";
  return `<${uri}> <${DCT}title> "${word} number ${n}" .
<${uri}> <${DCT}subject> <${SHARED_CONCEPT}> .
<${uri}> <${DCT}type> "kind-${collection === B ? "b" : "a"}" .
${shared}`;
}
const TRIPLES_OF_A = 3 + 3 + 1;

interface Callers {
  admin: Record<string, string>;
  reader: Record<string, string>;
  alice: Record<string, string>;
  bob: Record<string, string>;
  carol: Record<string, string>;
  dave: Record<string, string>;
}

async function callers(provider: OidcTestProvider): Promise<Callers> {
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  return {
    admin: bearer(ADMIN_TOKEN),
    reader: bearer(READER_TOKEN),
    alice: bearer(await provider.token("alice")),
    bob: bearer(await provider.token("bob")),
    carol: bearer(await provider.token("carol")),
    dave: bearer(await provider.token("dave")),
  };
}

const q = (collection: string, item?: string) =>
  `collection=${encodeURIComponent(collection)}${item ? `&item=${encodeURIComponent(item)}` : ""}`;

async function put(
  service: TestService,
  headers: Record<string, string>,
  collection: string,
  n: number,
): Promise<Response> {
  return await service.fetch(`/api/item?${q(collection, itemOf(collection, n))}`, {
    method: "PUT",
    headers: { ...headers, "Content-Type": "text/turtle" },
    body: itemBody(collection, n),
  });
}

async function sparql(
  service: TestService,
  headers: Record<string, string>,
  query: string,
): Promise<Record<string, { value: string }>[]> {
  const response = await service.fetch(`/sparql?query=${encodeURIComponent(query)}`, {
    headers: { ...headers, Accept: "application/sparql-results+json" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).results.bindings;
}

async function count(service: TestService, headers: Record<string, string>, query: string) {
  const rows = await sparql(service, headers, query);
  return Number(rows[0].n.value);
}

async function json(response: Response): Promise<unknown> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

/** The pairs this suite runs on: the default, the scale-out one, and the store on Virtuoso. */
const PAIRS = testBackends("access", { allStores: true }).filter((pair) =>
  ["embedded+embedded", "sparql+opensearch", "virtuoso+embedded"].includes(pair.name)
);

let provider: OidcTestProvider | undefined;
async function sharedProvider(): Promise<OidcTestProvider> {
  provider ??= await startOidcProvider({ identities: IDENTITIES, audience: AUDIENCE });
  return provider;
}

function accessTest(
  pair: BackendPair,
  name: string,
  fn: (service: TestService, as: Callers, provider: OidcTestProvider) => Promise<void>,
): void {
  Deno.test({
    name: `[access/${pair.name}] ${name}`,
    ignore: pair.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const oidc = await sharedProvider();
      const env = pair.env();
      const service = await startTestService({ yaml: yaml(oidc), env });
      try {
        const as = await callers(oidc);
        for (const collection of [A, B]) {
          for (const n of [1, 2]) {
            const created = await put(service, as.admin, collection, n);
            assert.equal(created.status, 201, await created.text());
          }
        }
        // The first service of a loaded run starts its indexing workers cold: room to.
        await service.services.deps.indexOutbox.drain(120_000);
        await fn(service, as, oidc);
      } finally {
        await service.close();
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
      }
    },
  });
}

for (const pair of PAIRS) {
  const searchToo = pair.store.name !== "virtuoso";

  accessTest(
    pair,
    "FROM <collection> is its items' union, for those who may read it",
    async (s, as) => {
      const fromA = `SELECT (COUNT(*) AS ?n) FROM <${A}> { ?s ?p ?o }`;
      const fromB = `SELECT (COUNT(*) AS ?n) FROM <${B}> { ?s ?p ?o }`;
      const fromBoth = `SELECT (COUNT(*) AS ?n) FROM <${A}> FROM <${B}> { ?s ?p ?o }`;
      // The shared triple counts once in the merge of A and B (Virtuoso's merge of listed
      // graphs is a bag: docs/backends.md).
      const shared = pair.store.name === "virtuoso" ? 0 : 1;
      assert.equal(await count(s, as.admin, fromA), TRIPLES_OF_A);
      assert.equal(await count(s, as.admin, fromB), TRIPLES_OF_A);
      assert.equal(await count(s, as.admin, fromBoth), 2 * TRIPLES_OF_A - shared);
      // A FILTER takes the other evaluation path on the embedded store: the same dataset.
      const filtered = `SELECT (COUNT(*) AS ?n) FROM <${A}> { ?s ?p ?o FILTER(isIRI(?s)) }`;
      assert.equal(await count(s, as.admin, filtered), TRIPLES_OF_A);
      // FROM NAMED <C>: GRAPH ?g ranges over C's item graphs alone.
      const named = await sparql(
        s,
        as.admin,
        `SELECT DISTINCT ?g FROM NAMED <${A}> { GRAPH ?g { ?s ?p ?o } }`,
      );
      assert.equal(named.length, 2);
      // The protocol's default-graph-uri naming a collection, as FROM does.
      const protocol = await s.fetch(
        `/sparql?query=${encodeURIComponent("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")}` +
          `&default-graph-uri=${encodeURIComponent(A)}`,
        { headers: { ...as.admin, Accept: "application/sparql-results+json" } },
      );
      const rows = (await json(protocol) as { results: { bindings: { n: { value: string } }[] } })
        .results.bindings;
      assert.equal(Number(rows[0].n.value), TRIPLES_OF_A);
      // alice reads A, not B: FROM <B> is empty for her, and FROM A and B is A alone.
      assert.equal(await count(s, as.alice, fromA), TRIPLES_OF_A);
      assert.equal(await count(s, as.alice, fromB), 0);
      assert.equal(await count(s, as.alice, fromBoth), TRIPLES_OF_A);
      assert.equal(await count(s, as.carol, fromA), 0);
    },
  );

  accessTest(
    pair,
    "the collections graph: which readable collection holds which item",
    async (s, as) => {
      const perCollection = `SELECT ?c (COUNT(*) AS ?n) WHERE {
        GRAPH <urn:rdf-content-service:collections> { ?g <${DCT}isPartOf> ?c }
        GRAPH ?g { ?s ?p ?o } } GROUP BY ?c`;
      const counts = async (headers: Record<string, string>) =>
        Object.fromEntries(
          (await sparql(s, headers, perCollection)).map((
            row,
          ) => [row.c.value, Number(row.n.value)]),
        );
      // Each item's triples once per item (GRAPH ?g): A's two items state 4 and 3.
      assert.deepEqual(await counts(as.admin), { [A]: TRIPLES_OF_A, [B]: TRIPLES_OF_A });
      assert.deepEqual(await counts(as.alice), { [A]: TRIPLES_OF_A });
      assert.deepEqual(await counts(as.carol), {});
      const items = await sparql(
        s,
        as.alice,
        `SELECT ?g { GRAPH <urn:rdf-content-service:collections> { ?g <${DCT}isPartOf> <${A}> } }`,
      );
      assert.equal(items.length, 2);
    },
  );

  accessTest(pair, "alice's /sparql sees A's item graphs and nothing of B", async (s, as) => {
    const all = "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }";
    assert.equal(await count(s, as.alice, all), TRIPLES_OF_A);
    // The graph of a B item: the SPARQL store names it by its template; the admin sees it.
    const { backend, sparql: sparqlSettings } = s.config.service.store;
    const graph = backend === "sparql"
      ? sparqlSettings.graphTemplate.replaceAll("{item}", itemOf(B, 1))
      : itemOf(B, 1);
    assert.notEqual(
      await count(s, as.admin, `SELECT (COUNT(*) AS ?n) { GRAPH <${graph}> { ?s ?p ?o } }`),
      0,
    );
    assert.equal(
      await count(s, as.alice, `SELECT (COUNT(*) AS ?n) FROM <${graph}> { ?s ?p ?o }`),
      0,
    );
    assert.equal(
      await count(s, as.alice, `SELECT (COUNT(*) AS ?n) { GRAPH <${graph}> { ?s ?p ?o } }`),
      0,
    );
    const named = await sparql(s, as.alice, "SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }");
    const adminGraphs = await sparql(
      s,
      as.admin,
      `SELECT DISTINCT ?g { GRAPH ?g { ?s <${DCT}type> "kind-a" } }`,
    );
    assert.deepEqual(
      named.map((row) => row.g.value).sort(),
      adminGraphs.map((row) => row.g.value).sort(),
    );
    assert.equal(named.length, 2);
    // B's word is nowhere, whichever evaluation path answers.
    assert.equal(
      await count(
        s,
        as.alice,
        `SELECT (COUNT(*) AS ?n) { ?s ?p ?o FILTER(CONTAINS(STR(?o), "zebra")) }`,
      ),
      0,
    );
    const ask = await s.fetch(
      `/sparql?query=${encodeURIComponent(`ASK { <${itemOf(B, 1)}> ?p ?o }`)}`,
      { headers: { ...as.alice, Accept: "application/sparql-results+json" } },
    );
    assert.equal((await json(ask) as { boolean: boolean }).boolean, false);
    // The protocol's dataset naming B's graph matches nothing either.
    const dataset = await s.fetch(
      `/sparql?query=${encodeURIComponent("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")}` +
        `&default-graph-uri=${encodeURIComponent(graph)}`,
      { headers: { ...as.alice, Accept: "application/sparql-results+json" } },
    );
    const rows = (await json(dataset) as { results: { bindings: { n: { value: string } }[] } })
      .results.bindings;
    assert.equal(Number(rows[0].n.value), 0);
    // The admin sees both; carol (no grant) and a reader token (no grant on A or B) nothing.
    const everyGraph = "SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }";
    assert.ok(await count(s, as.admin, everyGraph) >= 2 * TRIPLES_OF_A);
    assert.equal(await count(s, as.carol, all), 0);
    assert.equal(await count(s, as.reader, all), 0);
  });

  accessTest(pair, "items: a B item is 404 to alice, writes follow the grants", async (s, as) => {
    await expectProblem(
      await s.fetch(`/api/item?${q(B, itemOf(B, 1))}`, { headers: as.alice }),
      404,
      "collection-not-found",
    );
    // Exactly as an unknown collection answers.
    const unknown = await expectProblem(
      await s.fetch(`/api/item?${q(`${B}-nope`, itemOf(B, 1))}`, { headers: as.alice }),
      404,
      "collection-not-found",
    );
    assert.match(String(unknown.detail), /No collection/);
    await expectProblem(
      await s.fetch(`/api/item.ttl?${q(B, itemOf(B, 1))}`, { headers: as.alice }),
      404,
      "collection-not-found",
    );
    const read = await s.fetch(`/api/item?${q(A, itemOf(A, 1))}`, { headers: as.alice });
    assert.equal(read.status, 200, await read.text());
    await expectProblem(await put(s, as.alice, B, 3), 404, "collection-not-found");
    await expectProblem(await put(s, as.alice, A, 3), 403, "forbidden");
    const written = await put(s, as.bob, A, 3);
    assert.equal(written.status, 201, await written.text());
    await expectProblem(await put(s, as.bob, B, 3), 404, "collection-not-found");
    const deleted = await s.fetch(`/api/item?${q(B, itemOf(B, 2))}`, {
      method: "DELETE",
      headers: as.bob,
    });
    await expectProblem(deleted, 404, "collection-not-found");
    // carol, no grant: nothing of a governed collection; the open one needs a global role.
    await expectProblem(
      await s.fetch(`/api/item?${q(A, itemOf(A, 1))}`, { headers: as.carol }),
      404,
      "collection-not-found",
    );
    await expectProblem(await put(s, as.carol, OPEN, 1), 404, "collection-not-found");
    // The reader token keeps its global role on the collection without grants.
    await expectProblem(await put(s, as.reader, OPEN, 1), 403, "forbidden");
    assert.equal((await put(s, as.admin, OPEN, 1)).status, 201);
    const openRead = await s.fetch(`/api/item?${q(OPEN, itemOf(OPEN, 1))}`, { headers: as.reader });
    assert.equal(openRead.status, 200, await openRead.text());

    // An item's history needs what reading the item needs; a restore what writing needs.
    for (
      const path of [
        `/api/item/history?${q(B, itemOf(B, 1))}`,
        `/api/item?${q(B, itemOf(B, 1))}&version=1`,
        `/api/item.nt?${q(B, itemOf(B, 1))}&version=1`,
        `/api/item/diff?${q(B, itemOf(B, 1))}&from=1&to=1`,
      ]
    ) {
      await expectProblem(await s.fetch(path, { headers: as.alice }), 404, "collection-not-found");
    }
    const restoreB = await s.fetch(`/api/item/restore?${q(B, itemOf(B, 1))}&version=1`, {
      method: "POST",
      headers: as.bob,
    });
    await expectProblem(restoreB, 404, "collection-not-found");
    const restoreA = await s.fetch(`/api/item/restore?${q(A, itemOf(A, 1))}&version=1`, {
      method: "POST",
      headers: as.alice,
    });
    await expectProblem(restoreA, 403, "forbidden");
    const history = await s.fetch(`/api/item/history?${q(A, itemOf(A, 1))}`, {
      headers: as.alice,
    });
    assert.equal(history.status, 200, await history.clone().text());
    const { versions } = await history.json();
    assert.equal(versions[0].operation, "create");
    const restored = await s.fetch(`/api/item/restore?${q(A, itemOf(A, 1))}&version=1`, {
      method: "POST",
      headers: as.bob,
    });
    assert.equal(restored.status, 204, await restored.text());

    // The change feed needs what reading the collection needs, as JSON and as a stream.
    const feedOf = (collection: string, headers: Record<string, string>, accept?: string) =>
      s.fetch(`/api/changes?collection=${encodeURIComponent(collection)}`, {
        headers: { ...headers, ...(accept ? { Accept: accept } : {}) },
      });
    await expectProblem(await feedOf(B, as.alice), 404, "collection-not-found");
    await expectProblem(
      await feedOf(B, as.alice, "text/event-stream"),
      404,
      "collection-not-found",
    );
    await expectProblem(await feedOf(A, as.carol), 404, "collection-not-found");
    const feedA = await feedOf(A, as.alice);
    assert.equal(feedA.status, 200, await feedA.clone().text());
    const { changes } = await feedA.json() as { changes: { collection: string; item: string }[] };
    assert.ok(changes.some((change) => change.item === itemOf(A, 3)), "bob's write is in A's feed");
    assert.ok(changes.every((change) => change.collection === A), "only A's changes");
  });

  accessTest(
    pair,
    "listings, exports and jobs show only the caller's collections",
    async (s, as) => {
      const workspaces = await json(await s.fetch("/api/workspaces", { headers: as.alice })) as {
        collections: { uri: string }[];
      }[];
      assert.deepEqual(workspaces.flatMap((w) => w.collections.map((c) => c.uri)), [A]);
      const none = await json(await s.fetch("/api/workspaces", { headers: as.carol })) as unknown[];
      assert.deepEqual(none, []);
      await expectProblem(
        await s.fetch(`/api/admin/export?${q(B)}`, { headers: as.alice }),
        404,
        "collection-not-found",
      );
      const exportA = await s.fetch(`/api/admin/export?${q(A)}`, { headers: as.alice });
      assert.equal(exportA.status, 200);
      const nquads = await exportA.text();
      assert.match(nquads, /apple/);
      assert.doesNotMatch(nquads, /zebrafinch/);
      const workspaceExport = await s.fetch(
        `/api/admin/export?workspace=${encodeURIComponent(WORKSPACE)}`,
        { headers: as.alice },
      );
      assert.doesNotMatch(await workspaceExport.text(), /zebrafinch/);
      // Jobs: the admin indexes B; bob may index A, not B; alice's listing has no B job.
      const jobB = await s.fetch(`/api/admin/index/collection?${q(B)}&wait=true`, {
        method: "POST",
        headers: as.admin,
      });
      const { id: idB } = await json(jobB) as { id: string };
      await expectProblem(
        await s.fetch(`/api/admin/index/collection?${q(B)}`, { method: "POST", headers: as.bob }),
        404,
        "collection-not-found",
      );
      await expectProblem(
        await s.fetch(`/api/admin/index/collection?${q(A)}`, { method: "POST", headers: as.alice }),
        403,
        "forbidden",
      );
      const jobA = await s.fetch(`/api/admin/index/collection?${q(A)}&wait=true`, {
        method: "POST",
        headers: as.bob,
      });
      const { id: idA } = await json(jobA) as { id: string };
      const listed = await json(await s.fetch("/api/admin/index/jobs", { headers: as.alice })) as {
        id: string;
      }[];
      assert.ok(listed.some((job) => job.id === idA), "alice sees A's job");
      assert.ok(!listed.some((job) => job.id === idB), "alice does not see B's job");
      await expectProblem(
        await s.fetch(`/api/admin/index/jobs/${idB}`, { headers: as.alice }),
        404,
        "job-not-found",
      );
      const adminListed = await json(await s.fetch("/api/admin/index/jobs", { headers: as.admin }));
      assert.ok((adminListed as { id: string }[]).some((job) => job.id === idB));
    },
  );

  if (searchToo) {
    accessTest(pair, "search: hits, totals and facets from readable collections only", async (
      s,
      as,
    ) => {
      const search = (headers: Record<string, string>, collection: string, params: string) =>
        s.fetch(`/api/search?${q(collection)}&${params}`, { headers });
      const inA = await json(await search(as.alice, A, "q=zebrafinch")) as { total: number };
      assert.equal(inA.total, 0);
      await expectProblem(await search(as.alice, B, "q=zebrafinch"), 404, "collection-not-found");
      const adminB = await json(await search(as.admin, B, "q=zebrafinch")) as { total: number };
      assert.equal(adminB.total, 2, "B's items hold the word");
      const facets = "facet=types&q=apple";
      const alice = await json(await search(as.alice, A, facets));
      const admin = await json(await search(as.admin, A, facets));
      assert.deepEqual(alice, admin);
      assert.equal((alice as { total: number }).total, 2);
      // dave reads B and only B.
      const dave = await json(await search(as.dave, B, "q=zebrafinch")) as { total: number };
      assert.equal(dave.total, 2);
      await expectProblem(await search(as.dave, A, "q=apple"), 404, "collection-not-found");
      // Labels come from readable graphs only.
      const labels = await json(
        await s.fetch(`/api/labels?iri=${encodeURIComponent(itemOf(B, 1))}`, {
          headers: as.alice,
        }),
      ) as { labels: Record<string, unknown> };
      assert.deepEqual(labels.labels, {});
    });
  }

  accessTest(
    pair,
    "a grant changed through the collections API applies to the next request",
    async (
      s,
      as,
    ) => {
      const R = "https://data.example.org/collection/runtime";
      const made = await s.fetch("/api/admin/collections", {
        method: "POST",
        headers: { ...as.admin, "Content-Type": "application/json" },
        body: JSON.stringify({
          workspace: WORKSPACE,
          uri: R,
          name: "Runtime",
          index: "runtime",
          access: { readers: ["group:team-a"], editors: ["user:bob"] },
        }),
      });
      assert.equal(made.status, 201, await made.text());
      const etag = made.headers.get("etag") ?? "";
      assert.equal((await put(s, as.bob, R, 1)).status, 201);
      const before = await s.fetch(`/api/item?${q(R, itemOf(R, 1))}`, { headers: as.alice });
      assert.equal(before.status, 200, await before.text());
      // Shown in the collections API and the settings dump.
      const listed = await json(
        await s.fetch(`/api/admin/collections?${q(R)}`, { headers: as.admin }),
      ) as { access?: unknown };
      assert.deepEqual(listed.access, { readers: ["group:team-a"], editors: ["user:bob"] });
      const revoked = await s.fetch(`/api/admin/collections?${q(R)}`, {
        method: "PUT",
        headers: { ...as.admin, "Content-Type": "application/json", "If-Match": etag },
        body: JSON.stringify({ name: "Runtime", access: { readers: [], editors: ["user:bob"] } }),
      });
      assert.equal(revoked.status, 200, await revoked.text());
      await expectProblem(
        await s.fetch(`/api/item?${q(R, itemOf(R, 1))}`, { headers: as.alice }),
        404,
        "collection-not-found",
      );
      const bob = await s.fetch(`/api/item?${q(R, itemOf(R, 1))}`, { headers: as.bob });
      assert.equal(bob.status, 200, await bob.text());
      // Refusals are counted in /metrics.
      const metrics = await (await s.fetch("/metrics", { headers: as.admin })).text();
      assert.match(metrics, /rcs_access_refused_total\{operation="readItem",status="404"\} [1-9]/);
    },
  );

  if (pair.name === "embedded+embedded") {
    accessTest(pair, "bad tokens: 401 with the reason, never a 500", async (s, _as, oidc) => {
      const read = (token: string) =>
        s.fetch(`/api/item?${q(A, itemOf(A, 1))}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
      const reasonOf = async (token: string) =>
        String((await expectProblem(await read(token), 401, "unauthorized")).detail);
      assert.match(
        await reasonOf(await oidc.token("alice", { audience: "urn:other" })),
        /audience/i,
      );
      // Another issuer signing with the same keys: only the issuer is wrong.
      const other = await startOidcProvider({
        identities: IDENTITIES,
        audience: AUDIENCE,
        keys: oidc.keys,
      });
      try {
        assert.match(await reasonOf(await other.token("alice")), /issuer/i);
      } finally {
        await other.close();
      }
      const sameIssuer = await startOidcProvider({
        identities: IDENTITIES,
        audience: AUDIENCE,
        issuer: oidc.issuer,
      });
      try {
        assert.match(await reasonOf(await sameIssuer.token("alice")), /key/i);
      } finally {
        await sameIssuer.close();
      }
      const good = await oidc.token("alice");
      const [header, payload, signature] = good.split(".");
      const flipped = signature[0] === "A" ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
      assert.match(await reasonOf(`${header}.${payload}.${flipped}`), /signature/i);
      const shortLived = await oidc.token("alice", { ttlSeconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      assert.match(await reasonOf(shortLived), /expired/i);
      assert.equal((await read(good)).status, 200);
    });
  }
}

globalThis.addEventListener("unload", () => {
  void provider?.close();
});
