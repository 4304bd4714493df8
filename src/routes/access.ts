/**
 * Who may call what, as the configuration has it. The route contracts are the one place
 * roles are declared (every route is registered from its contract, which attaches the
 * check: src/http/route_contract.ts); the raw query DSL's contract alone gets its role from
 * the configuration (`service.search.opensearch.dsl.role`), here, for both its route and the
 * OpenAPI document.
 */
import type { DslRole } from "../http/auth.ts";
import type { RouteContract } from "../http/route_contract.ts";
import { ALL_CONTRACTS } from "./contracts/all.ts";
import { searchItemsWithDsl } from "./contracts/search.ts";

/** The raw query DSL's contract with the role the configuration gives it. */
export function dslSearchContract(dslRole: DslRole): typeof searchItemsWithDsl {
  // Off, it still takes a valid token; the route then answers that the DSL is off.
  return { ...searchItemsWithDsl, access: dslRole === "none" ? "reader" : dslRole };
}

/** Every contract with the access the configuration gives it. */
export function configuredContracts(dslRole: DslRole = "editor"): RouteContract[] {
  return ALL_CONTRACTS.map((contract) =>
    contract === searchItemsWithDsl ? dslSearchContract(dslRole) : contract
  );
}
