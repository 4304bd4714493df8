/**
 * Bearer tokens and roles: 401 without or with a wrong token, 403 for a weak role, /health
 * open, and start-up refused on a non-loopback address without tokens.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, itemQuery, startTestService, uniqueItemUri } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { requiredRole } from "../support/route_roles.ts";
import { rawRequest } from "../support/raw_http.ts";

const TOKENS = {
  reader: "reader-token-0123456789",
  editor: "editor-token-0123456789",
  admin: "admin-token-01234567890",
};

const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const YAML = SHIPPED.replace(
  "    tokens: []",
  `    tokens:
      - { name: r, token: "\${READER_TOKEN}", role: reader }
      - { name: e, token: "${TOKENS.editor}", role: editor }
      - { name: a, token: "${TOKENS.admin}", role: admin }`,
);

Deno.test("roles needed per route", async () => {
  assert.equal(await requiredRole("GET", "/health"), undefined);
  assert.equal(await requiredRole("GET", "/api/item"), "reader");
  assert.equal(await requiredRole("GET", "/api/item.ttl"), "reader");
  assert.equal(await requiredRole("GET", "/api/item/hash"), "reader");
  assert.equal(await requiredRole("GET", "/api/search"), "reader");
  assert.equal(await requiredRole("POST", "/api/search"), "editor");
  assert.equal(await requiredRole("POST", "/api/search", "reader"), "reader");
  assert.equal(await requiredRole("POST", "/api/search", "admin"), "admin");
  // Off, a valid token is still needed; the route answers search-dsl-disabled.
  assert.equal(await requiredRole("POST", "/api/search", "none"), "reader");
  // Any identity gets past the route; the collection's access decides (tests/api/access_test.ts
  // and the HTTP test below: a reader's PUT into a collection without grants is 403).
  assert.equal(await requiredRole("PUT", "/api/item"), "reader");
  assert.equal(await requiredRole("DELETE", "/api/item"), "reader");
  assert.equal(await requiredRole("POST", "/api/item/initialize"), "reader");
  assert.equal(await requiredRole("POST", "/api/admin/index"), "reader");
  assert.equal(await requiredRole("POST", "/api/admin/tools/generate-shacl"), "admin");
  // The workbench's pages and files hold no data: they load without a token.
  assert.equal(await requiredRole("GET", "/admin/sparqlui"), undefined);
  assert.equal(await requiredRole("GET", "/"), undefined);
  assert.equal(await requiredRole("GET", "/ui/sparql"), undefined);
  assert.equal(await requiredRole("GET", "/ui/assets/workbench.js"), undefined);
  assert.equal(await requiredRole("POST", "/ui/sparql"), "reader");
  assert.equal(await requiredRole("GET", "/api/workspaces"), "reader");
  assert.equal(await requiredRole("GET", "/metrics"), "admin");
});

Deno.test({
  name: "tokens and roles over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ yaml: YAML, env: { READER_TOKEN: TOKENS.reader } });
    try {
      const as = (role: keyof typeof TOKENS) => ({ Authorization: `Bearer ${TOKENS[role]}` });
      const health = await service.fetch("/health");
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const uri = uniqueItemUri("auth");
      const body = `<${uri}> <http://purl.org/dc/terms/title> "t" .`;
      const put = (headers: Record<string, string>) =>
        service.fetch(`/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`, {
          method: "PUT",
          headers: { "Content-Type": "text/turtle", ...headers },
          body,
        });
      const anonymous = await put({});
      assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);
      await expectProblem(anonymous, 401, "unauthorized");
      await expectProblem(
        await put({ Authorization: "Bearer wrong-token-0123456789" }),
        401,
        "unauthorized",
      );
      await expectProblem(await put(as("reader")), 403, "forbidden");
      const created = await put(as("editor"));
      assert.equal(created.status, 201);
      await created.body?.cancel();
      const read = await service.fetch(`/api/item?${itemQuery(uri)}`, { headers: as("reader") });
      assert.equal(read.status, 200);
      await read.body?.cancel();
      await expectProblem(
        await service.fetch("/api/admin/tools/dump-settings", {
          method: "POST",
          headers: as("editor"),
        }),
        403,
        "forbidden",
      );
      const dump = await service.fetch("/api/admin/tools/dump-settings", {
        method: "POST",
        headers: as("admin"),
      });
      assert.equal(dump.status, 200);
      const text = await dump.text();
      for (const secret of Object.values(TOKENS)) assert.ok(!text.includes(secret));
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "without tokens, foreign origins and host names are refused (CSRF, DNS rebinding)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    try {
      const uri = uniqueItemUri("csrf");
      const create = (headers: Record<string, string>) =>
        rawRequest(`${service.url}/api/item?${itemQuery(uri)}`, {
          method: "PUT",
          // A type a browser sends cross-site without a preflight.
          headers: { "Content-Type": "text/plain", ...headers },
          body: `<${uri}> <http://purl.org/dc/terms/title> "t" .`,
        });
      const foreign: Record<string, string>[] = [
        { Origin: "https://evil.example" },
        { Origin: "null" },
        { Host: "evil.example" },
        { Host: `rebound.example:${new URL(service.url).port}` },
      ];
      for (const headers of foreign) {
        const refused = await create(headers);
        assert.equal(refused.status, 403, JSON.stringify(headers));
        assert.equal(JSON.parse(refused.body).type, "/problems/foreign-caller");
      }
      const missing = await service.fetch(`/api/item?${itemQuery(uri)}`);
      await expectProblem(missing, 404, "item-not-found");
      // The service's own pages send a loopback origin; those requests pass.
      const local = await service.fetch("/api/admin/tools/sparqlui/sparql-endpoints", {
        headers: { Origin: service.url },
      });
      assert.equal(local.status, 200);
      await local.body?.cancel();
      const localhost = await rawRequest(`${service.url}/health`, {
        method: "GET",
        headers: { Host: `localhost:${new URL(service.url).port}` },
      });
      assert.equal(localhost.status, 200);
    } finally {
      await service.close();
    }
  },
});

Deno.test("start-up refuses a non-loopback host without tokens", async () => {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../src/main.ts", import.meta.url).pathname],
    env: { SERVICE_HTTP_HOST: "0.0.0.0", SERVICE_HTTP_PORT: "0", SERVICE_DATA_DIR: ":memory:" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 2);
  assert.match(new TextDecoder().decode(result.stderr), /without access tokens/);
});

Deno.test("start-up stops with the key path on a bad configuration", async () => {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../src/main.ts", import.meta.url).pathname],
    env: { SERVICE_HTTP_PORT: "eighty", SERVICE_DATA_DIR: ":memory:" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 2);
  assert.match(new TextDecoder().decode(result.stderr), /service\.http\.port/);
});
