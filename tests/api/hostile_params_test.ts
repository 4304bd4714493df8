/**
 * Hostile query parameters (issue 7, point 2): SPARQL injection through every URI
 * parameter of every route, on the embedded store and on a real SPARQL endpoint, plus
 * booleans and numbers that are not; and IRIs that are valid per docs/api.md yet hold
 * characters that mean something in SPARQL, SQL or Turtle, which must round-trip intact.
 *
 * A refused parameter is `400 invalid-iri` naming the parameter; nothing is written, the
 * canary item (which several of the requests target) is unchanged, and the service keeps
 * serving. The service runs as its own process, so a crash would show.
 */
import { strict as assert } from "node:assert";
import { rawRequest } from "../support/raw_http.ts";
import { storeBackends } from "../support/service.ts";
import {
  assertStillWrites,
  expectRefused,
  hostileItemUri,
  type HostileService,
  itemBody,
  itemParams,
  rawToResponse,
  startHostileService,
  storeSnapshot,
} from "../support/hostile.ts";

/** Values meant to break out of `<…>` or `"…"` in a SPARQL text, or not IRIs at all. */
const INJECTIONS = [
  "https://x.org/a> } ; DROP ALL ; #",
  "https://x.org/a>{}",
  "https://x.org/a>\nDROP ALL",
  'https://x.org/a" } ; DROP ALL ; #',
  "https://x.org/a\\u003E } ; DROP ALL",
  "https://x.org/a\u0000",
  "https://x.org/a\u007f",
  "https://x.org/a\u0085b",
  "https://x.org/a b",
  "https://x.org/a|b",
  "https://x.org/a^b",
  "https://x.org/a`b",
  "<https://x.org/a>",
  "no-scheme/relative",
  // Not RFC 3987 IRIs, which the embedded SPARQL engine would refuse once stored:
  "https://x.org/bad-percent-%ZZ",
  "https://x.org/a#one#two",
  "https://x.org/[brackets]",
  "https://x.org/private-use-\uE000",
  "https://x.org/noncharacter-\uFFFE",
];

/** A request with its URI parameters as a list, so that any one can be replaced. */
interface Call {
  method: string;
  path: string;
  params: [string, string][];
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Send over a raw socket (a GET with a body). */
  raw?: boolean;
}

/** A route, the call that would succeed, and which of its parameters are IRIs. */
interface Route {
  name: string;
  iriParams: string[];
  call(service: HostileService, fresh: string): Call;
}

const JSON_LD = { "Content-Type": "application/ld+json" };
const RDF_JSON = { "Content-Type": "application/rdf+json" };
const TITLE = "http://purl.org/dc/terms/title";

const ROUTES: Route[] = [
  {
    name: "PUT /api/item",
    iriParams: ["collection", "item"],
    call: (s, fresh) => ({
      method: "PUT",
      path: "/api/item",
      params: [["collection", s.collection], ["item", fresh]],
      body: itemBody(fresh),
      headers: JSON_LD,
    }),
  },
  {
    name: "GET /api/item",
    iriParams: ["collection", "item"],
    call: (s) => ({
      method: "GET",
      path: "/api/item",
      params: [["collection", s.collection], ["item", s.canary.uri]],
    }),
  },
  {
    name: "POST /api/item",
    iriParams: ["collection", "item"],
    call: (s) => ({
      method: "POST",
      path: "/api/item",
      params: [["collection", s.collection], ["item", s.canary.uri]],
      body: itemBody(s.canary.uri, "Overwritten by a hostile request"),
      headers: JSON_LD,
    }),
  },
  {
    name: "DELETE /api/item",
    iriParams: ["collection", "item"],
    call: (s) => ({
      method: "DELETE",
      path: "/api/item",
      params: [["collection", s.collection], ["item", s.canary.uri]],
    }),
  },
  ...["ttl", "rdf", "nt", "n3", "jsonld"].map((extension): Route => ({
    name: `GET /api/item.${extension}`,
    iriParams: ["collection", "item"],
    call: (s) => ({
      method: "GET",
      path: `/api/item.${extension}`,
      params: [["collection", s.collection], ["item", s.canary.uri]],
    }),
  })),
  {
    name: "GET /api/item/hash",
    iriParams: ["collection"],
    call: (s) => ({
      method: "GET",
      path: "/api/item/hash",
      params: [["collection", s.collection]],
      body: itemBody(s.canary.uri),
      headers: JSON_LD,
      raw: true,
    }),
  },
  {
    name: "POST /api/item/hash",
    iriParams: ["collection"],
    call: (s) => ({
      method: "POST",
      path: "/api/item/hash",
      params: [["collection", s.collection]],
      body: itemBody(s.canary.uri),
      headers: JSON_LD,
    }),
  },
  {
    name: "POST /api/item/initialize",
    iriParams: ["collection", "uri"],
    call: (s) => ({
      method: "POST",
      path: "/api/item/initialize",
      params: [["collection", s.collection], ["uri", s.canary.uri]],
      body: itemBody(s.canary.uri),
      headers: JSON_LD,
    }),
  },
  {
    name: "POST /api/admin/index",
    iriParams: ["workspace"],
    call: (s) => ({
      method: "POST",
      path: "/api/admin/index",
      params: [["workspace", s.workspace], ["wait", "true"]],
    }),
  },
  {
    name: "POST /api/admin/index/collection",
    iriParams: ["collection"],
    call: (s) => ({
      method: "POST",
      path: "/api/admin/index/collection",
      params: [["collection", s.collection], ["wait", "true"]],
    }),
  },
  {
    name: "POST /api/admin/index/items",
    iriParams: ["collection", "item"],
    call: (s) => ({
      method: "POST",
      path: "/api/admin/index/items",
      params: [["collection", s.collection], ["item", s.canary.uri], ["wait", "true"]],
    }),
  },
  {
    name: "GET /api/search",
    iriParams: ["collection"],
    call: (s) => ({ method: "GET", path: "/api/search", params: [["collection", s.collection]] }),
  },
  {
    name: "POST /api/search",
    iriParams: ["collection"],
    call: (s) => ({
      method: "POST",
      path: "/api/search",
      params: [["collection", s.collection]],
      body: JSON.stringify({ query: { match_all: {} } }),
      headers: { "Content-Type": "application/json" },
    }),
  },
  {
    name: "POST /api/admin/tools/generate-shacl",
    iriParams: ["namespace"],
    call: () => ({
      method: "POST",
      path: "/api/admin/tools/generate-shacl",
      params: [["namespace", "https://data.example.org/shapes/"]],
      body: shaclUpload(),
    }),
  },
];

function shaclUpload(): FormData {
  const form = new FormData();
  form.append(
    "file",
    new File([`<https://x.org/s> a <https://x.org/C> ; <https://x.org/p> "v" .`], "data.ttl"),
  );
  return form;
}

async function send(service: HostileService, call: Call): Promise<Response> {
  const query = call.params.map(([name, value]) =>
    `${encodeURIComponent(name)}=${encodeURIComponent(value)}`
  ).join("&");
  const url = `${service.url}${call.path}?${query}`;
  if (call.raw) {
    return rawToResponse(
      await rawRequest(url, {
        method: call.method,
        headers: call.headers,
        body: String(call.body),
      }),
    );
  }
  return await fetch(url, { method: call.method, headers: call.headers, body: call.body });
}

function hostileTest(name: string, fn: (service: HostileService) => Promise<void>): void {
  for (const backend of storeBackends()) {
    Deno.test({
      name: `${name} [${backend.name}]`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const service = await startHostileService(backend);
        try {
          await fn(service);
        } finally {
          await service.close();
        }
      },
    });
  }
}

hostileTest("the baseline calls succeed, so the refusals below are the parameters'", async (s) => {
  for (const route of ROUTES) {
    if (route.name === "DELETE /api/item" || route.name === "POST /api/item") continue;
    const fresh = hostileItemUri("baseline");
    const response = await send(s, route.call(s, fresh));
    const text = await response.text();
    // POST /api/search is the OpenSearch DSL: the embedded engine answers 501.
    const expected = route.name === "POST /api/search" ? [200, 501] : [200, 201];
    assert.ok(expected.includes(response.status), `${route.name}: ${response.status} ${text}`);
  }
});

hostileTest("SPARQL injection through every URI parameter is 400 invalid-iri", async (s) => {
  let cases = 0;
  // The store compared once around the whole series; each case checks its own item is absent.
  const before = await storeSnapshot(s);
  for (const route of ROUTES) {
    for (const param of route.iriParams) {
      for (const value of INJECTIONS) {
        const fresh = hostileItemUri("injection");
        const call = route.call(s, fresh);
        call.params = call.params.map(([name, v]) => [name, name === param ? value : v]);
        const { problem } = await expectRefused(s, {
          send: (service) => send(service, call),
          status: 400,
          slug: "invalid-iri",
          absent: [fresh],
          snapshot: false,
        }).catch((error) => {
          throw new Error(`${route.name} ${param}=${JSON.stringify(value)}: ${error.message}`, {
            cause: error,
          });
        });
        const errors = problem.errors as { path: string }[];
        assert.equal(errors?.[0]?.path, param, `${route.name}: the problem names ${param}`);
        cases++;
      }
    }
  }
  assert.ok(cases > 300, `only ${cases} cases ran`);
  assert.deepEqual(await storeSnapshot(s), before, "a refused injection wrote something");
  await assertStillWrites(s);
});

hostileTest("a hostile value after a valid one in a repeated parameter is refused", async (s) => {
  const lists: [Route, string][] = [
    [ROUTES.find((route) => route.name === "POST /api/item/initialize")!, "uri"],
    [ROUTES.find((route) => route.name === "POST /api/admin/index/items")!, "item"],
  ];
  for (const [route, param] of lists) {
    for (const value of INJECTIONS.slice(0, 4)) {
      const call = route.call(s, hostileItemUri("list"));
      call.params.push([param, value]);
      await expectRefused(s, {
        send: (service) => send(service, call),
        status: 400,
        slug: "invalid-iri",
      });
    }
  }
});

hostileTest("booleans, numbers and search parameters that are not", async (s) => {
  const c = encodeURIComponent(s.collection);
  const w = encodeURIComponent(s.workspace);
  const cases: [string, string, number, string][] = [
    ["POST", `/api/admin/index?workspace=${w}&clear=yes`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index?workspace=${w}&clear=TRUE`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index/collection?collection=${c}&clear=1`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index/collection?collection=${c}&wait=maybe`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index/collection?collection=${c}&clear=`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index/items?collection=${c}&item=${c}&wait=yes`, 400, "invalid-boolean"],
    ["POST", `/api/admin/index?clear=true`, 400, "missing-parameter"],
    ["GET", `/api/search?collection=${c}&from=-1`, 400, "invalid-parameter"],
    ["GET", `/api/search?collection=${c}&size=1e9`, 400, "invalid-parameter"],
    ["GET", `/api/search?collection=${c}&size=99999999999999999999`, 400, "invalid-parameter"],
    ["GET", `/api/search?collection=${c}&filter=noColon`, 400, "invalid-parameter"],
    ["GET", `/api/search?collection=${c}&filter=%22unclosed:x`, 400, "invalid-parameter"],
    ["GET", `/api/search?collection=${c}&sort=title:sideways`, 400, "invalid-parameter"],
    ["GET", `/api/admin/index/jobs?limit=-5`, 400, "invalid-parameter"],
    ["POST", `/api/search?collection=${c}`, 400, "invalid-json"],
  ];
  for (const [method, path, status, slug] of cases) {
    const body = path.startsWith("/api/search") && method === "POST" ? "{not json" : undefined;
    await expectRefused(s, {
      send: (service) => service.fetch(path, { method, body }),
      status,
      slug,
    }).catch((error) => {
      throw new Error(`${method} ${path}: ${error.message}`, { cause: error });
    });
  }
  // Query syntax of the search engines in `q` is text to search for, never an error.
  for (const q of ['"unbalanced', "title:(a OR", "a AND NOT", "*", "\\", "NEAR(a b, -1)"]) {
    const response = await s.fetch(`/api/search?collection=${c}&q=${encodeURIComponent(q)}`);
    const text = await response.text();
    assert.equal(response.status, 200, `q=${q}: ${text}`);
  }
});

/**
 * Legal per docs/api.md, so they must be accepted — and then be harmless in the SPARQL updates,
 * the SQLite store, the Turtle and RDF/XML writers and the Content-Disposition header.
 */
const VALID_BUT_PECULIAR = [
  "https://data.example.org/id/quote'in'it",
  "https://data.example.org/id/semi;DROP%20ALL;#frag",
  "https://data.example.org/id/q?x='1'&y=%3E%20%7D%22",
  "urn:x-test:a;b,c(d)*e!f$g+h=i@j~k",
  "https://data.example.org/id/unicode-ü-\u00a0-\u2028-\u{1F600}",
  "http://[::1]:8080/id/ipv6-host",
  "https://data.example.org/id/sql');DROP%20TABLE%20items;--",
  "https://data.example.org/id/colon:at@sign",
];

hostileTest("IRIs valid per docs/api.md but peculiar in SPARQL round-trip intact", async (s) => {
  for (const base of VALID_BUT_PECULIAR) {
    const uri = `${base}-${crypto.randomUUID()}`;
    const query = itemParams(s, uri);
    // RDF/JSON, not JSON-LD: jsonld.js takes an IRI with U+00A0 or U+2028 (JavaScript's
    // `\s`) for a relative one and drops it.
    const body = JSON.stringify({
      [uri]: { [TITLE]: [{ type: "literal", value: "Peculiar" }] },
    });
    const created = await s.fetch(`/api/item?${query}`, {
      method: "PUT",
      headers: RDF_JSON,
      body,
    });
    assert.equal(created.status, 201, `${uri}: ${await created.text()}`);
    const etag = created.headers.get("etag");
    for (const extension of ["nt", "ttl", "rdf", "jsonld", "n3"]) {
      const read = await s.fetch(`/api/item.${extension}?${query}`);
      const text = await read.text();
      assert.equal(read.status, 200, `${uri} .${extension}: ${text}`);
      assert.equal(read.headers.get("etag"), etag);
    }
    const nt = await (await s.fetch(`/api/item.nt?${query}`)).text();
    assert.ok(nt.includes(`<${uri}>`), `${uri} comes back as written: ${nt}`);
    const hash = await s.fetch(`/api/item/hash?collection=${encodeURIComponent(s.collection)}`, {
      method: "POST",
      headers: RDF_JSON,
      body,
    });
    assert.equal(hash.status, 200);
    assert.equal(`"${(await hash.json()).hash}"`, etag, "the stored item hashes as sent");
    const initialized = await s.fetch(
      `/api/item/initialize?collection=${encodeURIComponent(s.collection)}&uri=${
        encodeURIComponent(uri)
      }`,
      { method: "POST", headers: RDF_JSON, body },
    );
    assert.equal(initialized.status, 200, `${uri}: ${await initialized.text()}`);
    // The store's own SPARQL engine (the embedded mirror, or the endpoint) still answers.
    const counted = await s.fetch("/api/admin/tools/sparqlui/query?endpoint=store", {
      method: "POST",
      headers: { "Content-Type": "application/sparql-query" },
      body: `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { <${uri}> <${TITLE}> ?o } }`,
    });
    const results = await counted.text();
    assert.equal(counted.status, 200, `${uri}: ${results}`);
    assert.equal(JSON.parse(results).results.bindings[0].n.value, "1", results);
    const removed = await s.fetch(`/api/item?${query}`, { method: "DELETE" });
    assert.equal(removed.status, 204);
    const gone = await s.fetch(`/api/item?${query}`);
    // Every store keeps the deleted item's history: 410, with a link to it.
    assert.equal(gone.status, 410);
    await gone.body?.cancel();
    const history = await s.fetch(`/api/item/history?${query}`);
    const versions = (await history.json()).versions as { operation: string }[];
    assert.deepEqual(versions.map((v) => v.operation), ["delete", "create"], uri);
    const first = await s.fetch(`/api/item?${query}&version=1`);
    assert.equal(first.headers.get("etag"), etag, `${uri}: version 1 reads back`);
    await first.body?.cancel();
  }
  await assertStillWrites(s);
});
