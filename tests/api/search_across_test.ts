/**
 * `GET /api/search` across several collections or a workspace (issue 43, item 3), over real
 * HTTP with tokens from a real OpenID provider (tests/support/oidc_provider.ts), on the
 * embedded default and on the SPARQL store + OpenSearch: the parameter forms and their 400s,
 * the merged answer (hits naming their collection, the collection facet, paging), unknown
 * fields judged over every searched collection, and access: a workspace narrowed to what the
 * caller may read, a listed collection it may not read answered as an unknown one.
 *
 * alice (group team-a) reads A; dave (team-b) reads B and C; the reader token reads OPEN
 * (no grants: global roles); carol reads nothing; the admin token everything. Workspace
 * Across holds A, B and OPEN; workspace Closed holds C.
 */
import { strict as assert } from "node:assert";
import { startTestService } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";
import { type OidcTestProvider, startOidcProvider } from "../support/oidc_provider.ts";

const A = "https://data.example.org/collection/across-a";
const B = "https://data.example.org/collection/across-b";
const OPEN = "https://data.example.org/collection/across-open";
const C = "https://data.example.org/collection/closed-c";
const ACROSS = "https://data.example.org/workspace/across";
const CLOSED = "https://data.example.org/workspace/closed";
const ADMIN_TOKEN = "across-admin-token-0123456789";
const READER_TOKEN = "across-reader-token-0123456789";
const AUDIENCE = "https://rdf-content-service.example/api";
const DCT = "http://purl.org/dc/terms/";
const EX = "http://example.org/vocab/";

const IDENTITIES = [
  { id: "alice", groups: ["team-a"] },
  { id: "carol", groups: [] },
  { id: "dave", groups: ["team-b"] },
];

function yaml(provider: OidcTestProvider): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}    query:
      maxResultsLimit: 3
      maxWindow: 5
  security:
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
  - uri: ${ACROSS}
    name: Across
    collections:
      - uri: ${A}
        name: Across A
        index: across-a
        access:
          readers: [group:team-a]
      - uri: ${B}
        name: Across B
        index: across-b
        access:
          readers: [group:team-b]
      - uri: ${OPEN}
        name: Across open
        index: across-open
  - uri: ${CLOSED}
    name: Closed
    collections:
      - uri: ${C}
        name: Closed C
        index: closed-c
        access:
          readers: [group:team-b]
`;
}

const itemOf = (collection: string, n: number) =>
  `${collection.replace("/collection/", "/id/")}/item-${n}`;

/** Two items a collection: both hold "apple"; B's items alone have a `colour`. */
function itemBody(collection: string, n: number): string {
  const uri = itemOf(collection, n);
  const colour = collection === B ? `<${uri}> <${EX}colour> "red" .` : "";
  return `<${uri}> <${DCT}title> "apple number ${n}" .\n${colour}`;
}

type Headers = Record<string, string>;

interface Answer {
  total: number;
  totalRelation: string;
  from: number;
  size: number;
  clamped: unknown;
  hits: { uri: string; collection: string; score: number | null }[];
  facets?: Record<string, { value: unknown; count: number }[]>;
}

const PAIRS = testBackends("across").filter((pair) =>
  ["embedded+embedded", "sparql+opensearch"].includes(pair.name)
);

let provider: OidcTestProvider | undefined;

for (const pair of PAIRS) {
  Deno.test({
    name: `[search-across/${pair.name}] collections, workspaces, merged answers and access`,
    ignore: pair.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      provider ??= await startOidcProvider({ identities: IDENTITIES, audience: AUDIENCE });
      const env = pair.env();
      const service = await startTestService({ yaml: yaml(provider), env });
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
      const as = {
        admin: bearer(ADMIN_TOKEN),
        reader: bearer(READER_TOKEN),
        alice: bearer(await provider.token("alice")),
        carol: bearer(await provider.token("carol")),
        dave: bearer(await provider.token("dave")),
      };
      const search = (headers: Headers, parameters: [string, string][]) =>
        service.fetch(`/api/search?${new URLSearchParams(parameters)}`, { headers });
      const answer = async (headers: Headers, parameters: [string, string][]) => {
        const response = await search(headers, parameters);
        const text = await response.text();
        assert.equal(response.status, 200, text);
        return JSON.parse(text) as Answer;
      };
      try {
        for (const collection of [A, B, OPEN, C]) {
          for (const n of [1, 2]) {
            const response = await service.fetch(
              `/api/item?${new URLSearchParams({ collection, item: itemOf(collection, n) })}`,
              {
                method: "PUT",
                headers: { ...as.admin, "Content-Type": "text/turtle" },
                body: itemBody(collection, n),
              },
            );
            assert.equal(response.status, 201, await response.text());
          }
        }
        await service.services.deps.indexOutbox.drain(120_000);

        await t.step("parameter forms: neither or both is 400 naming the parameter", async () => {
          const neither = await expectProblem(
            await search(as.admin, [["q", "apple"]]),
            400,
            "missing-parameter",
          );
          assert.equal((neither.errors as { path: string }[])[0].path, "collection");
          const both = await expectProblem(
            await search(as.admin, [["collection", A], ["workspace", ACROSS]]),
            400,
            "invalid-parameter",
          );
          assert.equal((both.errors as { path: string }[])[0].path, "workspace");
          const badWorkspace = await expectProblem(
            await search(as.admin, [["workspace", "not an iri"]]),
            400,
            "invalid-iri",
          );
          assert.equal((badWorkspace.errors as { path: string }[])[0].path, "workspace");
          const badSecond = await expectProblem(
            await search(as.admin, [["collection", A], ["collection", "nope"]]),
            400,
            "invalid-iri",
          );
          assert.equal((badSecond.errors as { path: string }[])[0].path, "collection");
          await expectProblem(
            await search(as.admin, [["workspace", "https://data.example.org/workspace/none"]]),
            404,
            "workspace-not-found",
          );
          await expectProblem(
            await search(as.admin, [["collection", A], [
              "collection",
              "https://data.example.org/collection/none",
            ]]),
            404,
            "collection-not-found",
          );
        });

        await t.step("one collection answers as before, its hits named", async () => {
          const one = await answer(as.admin, [["collection", A], ["q", "apple"]]);
          assert.equal(one.total, 2);
          assert.deepEqual(one.hits.map((hit) => hit.collection), [A, A]);
          assert.deepEqual(
            Object.keys(one).sort(),
            ["clamped", "from", "hits", "size", "total", "totalRelation"],
          );
        });

        await t.step("listed collections and a workspace merge into one answer", async () => {
          const listed = await answer(as.admin, [
            ["collection", A],
            ["collection", B],
            ["collection", A],
            ["q", "apple"],
            ["facet", "collection"],
            ["size", "3"],
          ]);
          assert.equal(listed.total, 4);
          assert.equal(listed.hits.length, 3);
          assert.deepEqual(listed.facets?.collection, [
            { value: A, count: 2 },
            { value: B, count: 2 },
          ]);
          const rest = await answer(as.admin, [
            ["collection", A],
            ["collection", B],
            ["q", "apple"],
            ["from", "3"],
            ["size", "3"],
          ]);
          assert.equal(rest.hits.length, 1);
          const seen = [...listed.hits, ...rest.hits].map((hit) => `${hit.collection} ${hit.uri}`);
          assert.deepEqual(
            seen.toSorted(),
            [A, B].flatMap((c) => [1, 2].map((n) => `${c} ${itemOf(c, n)}`)).sort(),
          );
          const workspace = await answer(as.admin, [
            ["workspace", ACROSS],
            ["facet", "collection"],
            ["size", "9"],
          ]);
          // 6 hits; the window is clamped for the whole answer (maxResultsLimit 3).
          assert.equal(workspace.total, 6);
          assert.deepEqual(workspace.clamped, {
            requested: { from: 0, size: 9 },
            applied: { from: 0, size: 3 },
          });
          assert.deepEqual(
            workspace.facets?.collection.map((value) => value.count),
            [2, 2, 2],
          );
          // No `q`: URI order over the workspace's collections.
          assert.deepEqual(
            workspace.hits.map((hit) => hit.uri),
            [A, B, OPEN].flatMap((c) => [1, 2].map((n) => itemOf(c, n))).sort().slice(0, 3),
          );
        });

        await t.step("a field any searched collection holds is known", async () => {
          await expectProblem(
            await search(as.admin, [["collection", A], ["filter", "colour:blue"]]),
            400,
            "unknown-field",
          );
          const known = await answer(as.admin, [
            ["collection", A],
            ["collection", B],
            ["filter", "colour:blue"],
          ]);
          assert.equal(known.total, 0);
          const sorted = await answer(as.admin, [["workspace", ACROSS], ["sort", "colour:asc"]]);
          assert.deepEqual(sorted.hits.slice(0, 2).map((hit) => hit.collection), [B, B]);
          const unknown = await expectProblem(
            await search(as.admin, [["workspace", ACROSS], ["sort", "flavour"]]),
            400,
            "invalid-sort",
          );
          assert.equal((unknown.errors as { path: string }[])[0].path, "sort");
        });

        await t.step("a workspace covers the collections the caller may read", async () => {
          const params: [string, string][] = [
            ["workspace", ACROSS],
            ["q", "apple"],
            ["facet", "collection"],
          ];
          const alice = await answer(as.alice, params);
          assert.equal(alice.total, 2);
          assert.deepEqual(alice.facets?.collection, [{ value: A, count: 2 }]);
          assert.ok(alice.hits.every((hit) => hit.collection === A));
          const dave = await answer(as.dave, params);
          assert.deepEqual(dave.facets?.collection, [{ value: B, count: 2 }]);
          const reader = await answer(as.reader, params);
          assert.deepEqual(reader.facets?.collection, [{ value: OPEN, count: 2 }]);
          // None readable: an empty answer, not an error.
          const carol = await answer(as.carol, params);
          assert.deepEqual(
            { total: carol.total, hits: carol.hits, facets: carol.facets },
            { total: 0, hits: [], facets: { collection: [] } },
          );
          const closed = await answer(as.alice, [["workspace", CLOSED], ["q", "apple"]]);
          assert.equal(closed.total, 0);
          assert.equal((await answer(as.dave, [["workspace", CLOSED], ["q", "apple"]])).total, 2);
        });

        await t.step("a listed collection the caller may not read is an unknown one", async () => {
          const unknown = "https://data.example.org/collection/none";
          const refused = await expectProblem(
            await search(as.alice, [["collection", A], ["collection", B], ["q", "apple"]]),
            404,
            "collection-not-found",
          );
          const missing = await expectProblem(
            await search(as.alice, [["collection", A], ["collection", unknown], ["q", "apple"]]),
            404,
            "collection-not-found",
          );
          assert.deepEqual(
            { ...refused, detail: String(refused.detail).replace(B, unknown) },
            { ...missing },
          );
          // Listed first or second alike.
          await expectProblem(
            await search(as.alice, [["collection", B], ["collection", A]]),
            404,
            "collection-not-found",
          );
          assert.equal(
            (await answer(as.dave, [["collection", B], ["collection", C], ["q", "apple"]])).total,
            4,
          );
        });
      } finally {
        await service.close();
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
      }
    },
  });
}
