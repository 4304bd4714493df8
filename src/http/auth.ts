/**
 * Bearer tokens and roles (docs/api.md, last section).
 *
 * Without tokens the service serves loopback only (enforced at start-up) and every caller
 * is an admin. With tokens, {@link authenticate} runs before every route and only reads the
 * token: it finds whose it is, if anyone's. Each route then checks the role its contract
 * declares ({@link authorize}, attached when the route is registered from its contract,
 * src/http/route_contract.ts); an `open` route needs none. Tokens are compared in constant
 * time.
 */
import type { Context, MiddlewareHandler } from "hono";
import { timingSafeEqual } from "node:crypto";
import type { AppEnv } from "./app_env.ts";
import { DomainError } from "../errors/domain_error.ts";

/** A caller's role, weakest first. */
export type Role = "reader" | "editor" | "admin";

/** What a route needs: a role, or nothing (`open`). */
export type Access = Role | "open";

const RANK: Record<Role, number> = { reader: 0, editor: 1, admin: 2 };

/** A configured token. */
export interface AccessToken {
  name: string;
  token: string;
  role: Role;
}

/** `service.search.opensearch.dsl.role`: a role, or `none` when the raw query DSL is off. */
export type DslRole = Role | "none";

const encoder = new TextEncoder();

/** Compares two secrets without leaking where they differ, or their lengths' relation. */
function sameSecret(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  // Compare equal-length buffers always, so the time does not depend on the length match.
  const padded = new Uint8Array(b.length);
  padded.set(a.subarray(0, b.length));
  return timingSafeEqual(padded, b) && a.length === b.length;
}

/**
 * Reads the bearer token and records who the caller is; refuses nothing, since whether a
 * caller may go on is the route's to say ({@link authorize}). Every caller is an admin
 * when no tokens are configured.
 */
export function authenticate(tokens: AccessToken[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (tokens.length === 0) {
      c.set("caller", { name: "local", role: "admin" });
      c.set("role", "admin");
      return await next();
    }
    const header = c.req.header("authorization");
    const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
    let found: AccessToken | undefined;
    if (match) {
      // Check every token, so the time does not tell which one (if any) matched.
      for (const candidate of tokens) {
        if (sameSecret(match[1], candidate.token)) found = candidate;
      }
    }
    if (found) {
      c.set("caller", { name: found.name, role: found.role });
      c.set("role", found.role);
    } else {
      c.set("caller", { presentedToken: match !== null && match !== undefined });
    }
    await next();
  };
}

/** Throws 401 unless the caller is authenticated, 403 unless with at least `needed`. */
export function requireRole(c: Context<AppEnv>, needed: Role): void {
  const caller = c.get("caller");
  if (caller === undefined || !("role" in caller)) {
    throw new DomainError("unauthorized", {
      detail: caller?.presentedToken
        ? "The bearer token is not valid."
        : "Send Authorization: Bearer <token>.",
    });
  }
  if (RANK[caller.role] < RANK[needed]) {
    throw new DomainError("forbidden", {
      detail:
        `This operation needs the ${needed} role; the token '${caller.name}' has ${caller.role}.`,
    });
  }
}

/** The per-route check of the role its contract declares; `open` lets everyone through. */
export function authorize(access: Access): MiddlewareHandler<AppEnv> {
  if (access === "open") return async (_c, next) => await next();
  return async (c, next) => {
    requireRole(c, access);
    await next();
  };
}
