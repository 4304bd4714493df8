/**
 * Who may call what: the role each request needs, read from the route contracts — the one
 * place roles are declared (every route the app registers has a contract, and every contract
 * an `access`). The raw query DSL's contract gets the role `service.search.dsl.role`
 * configures, here, for both the check (src/http/auth.ts) and the OpenAPI document.
 */
import { TrieRouter } from "hono/router/trie-router";
import type { DslRole, Role } from "../http/auth.ts";
import { honoPath, type RouteContract } from "../http/route_contract.ts";
import { ALL_CONTRACTS } from "./contracts/all.ts";
import { searchItemsWithDsl } from "./contracts/search.ts";

/** Every contract with the access the configuration gives it. */
export function configuredContracts(dslRole: DslRole = "editor"): RouteContract[] {
  // Off, it still takes a valid token; the route then answers that the DSL is off.
  const access = dslRole === "none" ? "reader" : dslRole;
  return ALL_CONTRACTS.map((contract) =>
    contract === searchItemsWithDsl ? { ...contract, access } : contract
  );
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

/**
 * The role a request needs; undefined for an open route. A request no route takes needs a
 * valid token too, and is then answered 404.
 */
export function roleRequirement(
  dslRole: DslRole = "editor",
): (method: string, path: string) => Role | undefined {
  const contractOf = contractRouter(configuredContracts(dslRole));
  return (method, path) => {
    const access = contractOf(method, path)?.access ?? "reader";
    return access === "open" ? undefined : access;
  };
}

const DEFAULT_REQUIREMENT = roleRequirement();

/** The role a request needs under the given `service.search.dsl.role`; undefined if open. */
export function requiredRole(
  method: string,
  path: string,
  dslRole: DslRole = "editor",
): Role | undefined {
  const requirement = dslRole === "editor" ? DEFAULT_REQUIREMENT : roleRequirement(dslRole);
  return requirement(method, path);
}
