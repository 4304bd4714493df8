/**
 * The role the app enforces for a request, found by asking the app itself: the request is
 * sent without a token, then with a reader's, an editor's and an admin's, and the first that
 * is not refused with `unauthorized` or `forbidden` tells the role. A route open to any
 * identity (`authenticated`, its collection's grants deciding) answers `reader`: the probe
 * names no collection. The app is built over
 * dependencies that are never really used (every property is a stand-in), so no store or
 * engine is needed; what a handler makes of them does not matter, only whether it was let in.
 */
import { TrieRouter } from "hono/router/trie-router";
import { createApp } from "../../src/app.ts";
import { honoPath, type RouteContract } from "../../src/http/route_contract.ts";
import type { AppDeps } from "../../src/routes/app_deps.ts";
import type { DslRole, Role } from "../../src/http/auth.ts";
import { BUILT_IN_CUSTOMER_YML } from "../../src/config/defaults.ts";
import { parseConfigText } from "../../src/config/load.ts";

const TOKENS: Record<Role, string> = {
  reader: "probe-reader-token-0123456789",
  editor: "probe-editor-token-0123456789",
  admin: "probe-admin-token-01234567890",
};

/** Dependencies that are stand-ins: any property is another one, and so is any call's result. */
export function unusedDeps(dslRole: DslRole = "editor", withTokens = false): AppDeps {
  const stub: object = new Proxy(() => stub, {
    get: (_target, key) => key === "then" ? undefined : stub,
  });
  const env: Record<string, string> = withTokens
    ? {
      SERVICE_READER_TOKEN: TOKENS.reader,
      SERVICE_EDITOR_TOKEN: TOKENS.editor,
      SERVICE_ADMIN_TOKEN: TOKENS.admin,
    }
    : {};
  const config = parseConfigText(BUILT_IN_CUSTOMER_YML, "test", (name) => env[name]);
  config.service.search.opensearch.dsl.role = dslRole;
  return new Proxy({ config, version: "test", identities: undefined }, {
    get: (target, key) => key in target ? target[key as keyof typeof target] : stub,
  }) as unknown as AppDeps;
}

const apps = new Map<DslRole, ReturnType<typeof createApp>>();

/** Whether the app refused the request for want of a token or of a role. */
async function refused(
  method: string,
  path: string,
  dslRole: DslRole,
  token?: string,
): Promise<boolean> {
  let app = apps.get(dslRole);
  if (!app) apps.set(dslRole, app = createApp(unusedDeps(dslRole, true)));
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await app.request(path, { method, headers });
  const text = await response.text();
  if (response.status !== 401 && response.status !== 403) return false;
  // A HEAD answer has no body to tell the problem by.
  if (method === "HEAD") return true;
  const type = (JSON.parse(text) as { type?: string }).type;
  return type === "/problems/unauthorized" || type === "/problems/forbidden";
}

/** The role the app enforces for `method path`; undefined when it lets anyone in. */
export async function requiredRole(
  method: string,
  path: string,
  dslRole: DslRole = "editor",
): Promise<Role | undefined> {
  if (!await refused(method, path, dslRole)) return undefined;
  for (const role of ["reader", "editor"] as const) {
    if (!await refused(method, path, dslRole, TOKENS[role])) return role;
  }
  return "admin";
}

/** The contract a request is routed to, matched as Hono matches it (HEAD as GET). */
export function contractRouter(
  contracts: readonly RouteContract[],
): (method: string, path: string) => RouteContract | undefined {
  const router = new TrieRouter<RouteContract>();
  for (const contract of contracts) router.add(contract.method, honoPath(contract.path), contract);
  return (method, path) => {
    const [matches] = router.match(method === "HEAD" ? "GET" : method, path);
    return matches[0]?.[0];
  };
}
