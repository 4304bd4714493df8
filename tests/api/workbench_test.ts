/**
 * The workbench over HTTP (docs/api.md, Workbench), without a browser: every page is one
 * HTML document under a strict Content-Security-Policy that loads only this service's files;
 * every file a page names is served from the embedded set, with an ETag that revalidates;
 * pages and files need no token, the data behind them does; the old query page redirects;
 * `GET /api/workspaces` lists what customer.yml configures with the store's item counts (on
 * each store backend).
 * The browser flows are in tests/e2e/workbench_test.ts.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  DEMO_WORKSPACE,
  itemQuery,
  startTestService,
  storeBackends,
  storeTest,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { ASSET_NAMES } from "../../src/ui/assets.ts";
import { WORKBENCH_PAGES } from "../../src/routes/contracts/workbench.ts";

const PAGE_PATHS = Object.values(WORKBENCH_PAGES).map((contract) => contract.path);

function serviceTest(name: string, fn: (service: TestService) => Promise<void>, yaml?: string) {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({ yaml });
      try {
        await fn(service);
      } finally {
        await service.close();
      }
    },
  });
}

/** The /ui/assets/ files a page's HTML names. */
function assetsNamed(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="\/ui\/assets\/([^"]+)"/g)].map((match) => match[1]);
}

/** The /ui/assets/ modules `script` imports, directly or through the modules it imports. */
async function modulesImported(s: TestService, script: string): Promise<Set<string>> {
  const found = new Set<string>();
  const pending = [script];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const response = await s.fetch(`/ui/assets/${name}`);
    assert.equal(response.status, 200, `${name}, imported`);
    for (const [, imported] of (await response.text()).matchAll(/from "\.\/([^"]+)"/g)) {
      if (!found.has(imported)) pending.push(imported);
      found.add(imported);
    }
  }
  return found;
}

serviceTest("every page is HTML under a strict CSP, naming only embedded files", async (s) => {
  const named = new Set<string>();
  for (const path of PAGE_PATHS) {
    const response = await s.fetch(path);
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/i);
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /script-src 'self'(;|$)/, path);
    assert.match(csp, /connect-src 'self'/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    const html = await response.text();
    assert.ok(!/\s(src|href)=["']?(https?:)?\/\//i.test(html), `${path}: an external resource`);
    assert.ok(!/<script(?![^>]*\ssrc=)[^>]*>/i.test(html), `${path}: an inline script`);
    for (const name of assetsNamed(html)) named.add(name);
    assert.match(html, /<label for="token-input">/, `${path}: the token field has a label`);
  }
  // The pages' scripts import the workbench's other modules; the licence notes link the rest.
  for (const script of [...named].filter((name) => name.startsWith("page-"))) {
    for (const module of await modulesImported(s, script)) named.add(module);
  }
  const notes = await (await s.fetch("/ui/assets/licenses.txt")).text();
  for (const match of notes.matchAll(/\/ui\/assets\/(\S+)/g)) named.add(match[1]);
  assert.deepEqual([...named].sort(), [...ASSET_NAMES].sort());
});

serviceTest("every embedded file is served with its type and a revalidating ETag", async (s) => {
  for (const name of ASSET_NAMES) {
    const response = await s.fetch(`/ui/assets/${name}`);
    assert.equal(response.status, 200, name);
    const type = response.headers.get("content-type") ?? "";
    const expected = name.endsWith(".css")
      ? /^text\/css/
      : name.endsWith(".txt")
      ? /^text\/plain/
      : /^text\/javascript/;
    assert.match(type, expected, name);
    const body = new Uint8Array(await response.arrayBuffer());
    assert.ok(body.length > 40, `${name} is ${body.length} bytes`);
    const etag = response.headers.get("etag") ?? "";
    assert.match(etag, /^"[0-9a-f]{64}"$/);
    const again = await s.fetch(`/ui/assets/${name}`, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304, name);
    await again.body?.cancel();
  }
  // The third-party files are the npm packages' own builds.
  const yasgui = await (await s.fetch("/ui/assets/yasgui.min.js")).text();
  assert.match(yasgui, /Yasgui/);
  const swagger = await (await s.fetch("/ui/assets/swagger-ui-bundle.js")).text();
  assert.match(swagger, /SwaggerUIBundle/);
  await expectProblem(await s.fetch("/ui/assets/nope.js"), 404, "asset-not-found");
  await expectProblem(await s.fetch("/ui/assets/..%2Fassets.ts"), 404, "asset-not-found");
});

serviceTest("the old query page redirects to /ui/sparql", async (s) => {
  const response = await s.fetch("/admin/sparqlui", { redirect: "manual" });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/ui/sparql");
  await response.body?.cancel();
});

for (const backend of storeBackends()) {
  storeTest(
    "workbench",
    backend,
    "GET /api/workspaces lists the collections with item counts",
    async (s) => {
      const before = await (await s.fetch("/api/workspaces")).json();
      const uri = uniqueItemUri("catalog");
      const created = await s.fetch(`/api/item?${itemQuery(uri, DEMO_COLLECTION)}`, {
        method: "PUT",
        headers: { "Content-Type": "text/turtle" },
        body: `<${uri}> <http://purl.org/dc/terms/title> "Counted" .`,
      });
      assert.equal(created.status, 201);
      const response = await s.fetch("/api/workspaces");
      assert.equal(response.status, 200);
      const after = await response.json();
      assert.deepEqual(after, [{
        uri: DEMO_WORKSPACE,
        name: "Demo",
        source: "config",
        collections: [{
          uri: DEMO_COLLECTION,
          name: "Documents",
          index: "documents",
          items: before[0].collections[0].items + 1,
          source: "config",
          // Without security every caller is the local admin: it may write, and sees the grants.
          rights: ["read", "write", "export", "maintain"],
          access: null,
        }],
      }]);
    },
  );
}

const TOKEN = "workbench-api-reader-token-0123456789";
const WITH_TOKENS = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url)).replace(
  "    tokens: []",
  `    tokens:\n      - { name: r, token: "${TOKEN}", role: reader }`,
);

serviceTest("with tokens, pages and files load without one; the data needs it", async (s) => {
  for (const path of [...PAGE_PATHS, "/ui/assets/workbench.js"]) {
    const response = await s.fetch(path);
    assert.equal(response.status, 200, path);
    await response.body?.cancel();
  }
  const redirect = await s.fetch("/admin/sparqlui", { redirect: "manual" });
  assert.equal(redirect.status, 302);
  await redirect.body?.cancel();
  await expectProblem(await s.fetch("/api/workspaces"), 401, "unauthorized");
  const listed = await s.fetch("/api/workspaces", {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(listed.status, 200);
  await listed.body?.cancel();
  // Only reads are open: a POST to a page path still needs a token.
  await expectProblem(await s.fetch("/ui/sparql", { method: "POST" }), 401, "unauthorized");
}, WITH_TOKENS);
