/**
 * Every route the app registers has an access declaration (its contract's `access`), and the
 * role a request needs is read from it: a route added without a contract, or a contract left
 * out of the list roles are read from, fails here.
 */
import { strict as assert } from "node:assert";
import { createApp } from "../../src/app.ts";
import { configuredContracts } from "../../src/routes/access.ts";
import { contractRouter, requiredRole, unusedDeps } from "../support/route_roles.ts";

const ACCESS = ["open", "authenticated", "reader", "editor", "admin"];

Deno.test("every registered route has an access declaration, and it is the one enforced", async () => {
  const app = createApp(unusedDeps());
  const contractOf = contractRouter(configuredContracts());
  const routes = app.routes.filter((route) =>
    !(route.method === "ALL" && /^\/?\*$/.test(route.path))
  );
  assert.ok(routes.length > 30, `only ${routes.length} routes found`);
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const contract = contractOf(route.method, route.path);
    assert.ok(contract, `${key} has no contract, so no access declaration`);
    assert.equal(
      contract.path.replace(/\{([^}]+)\}/g, ":$1"),
      route.path,
      `${key} is matched by another route's contract`,
    );
    assert.ok(ACCESS.includes(contract.access), `${key}: access ${contract.access}`);
    const concrete = route.path.replace(/:[^/]+/g, "x");
    // Any identity passes an `authenticated` route: the probe's reader token does.
    const expected = contract.access === "open"
      ? undefined
      : contract.access === "authenticated"
      ? "reader"
      : contract.access;
    assert.equal(await requiredRole(route.method, concrete), expected, key);
  }
});

Deno.test("a request no route takes needs a valid token, then is answered 404", async () => {
  assert.equal(await requiredRole("GET", "/no/such/path"), "reader");
  assert.equal(await requiredRole("POST", "/ui/sparql"), "reader");
  // HEAD is routed as GET.
  assert.equal(await requiredRole("HEAD", "/health"), undefined);
  assert.equal(await requiredRole("HEAD", "/metrics"), "admin");
});
