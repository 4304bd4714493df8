/**
 * Bearer tokens and roles (API.md, last section).
 *
 * Without tokens the service serves loopback only (enforced at start-up) and every caller
 * is an admin. With tokens, a request needs `Authorization: Bearer <token>` with at least
 * the role its route's contract declares (`access`; src/routes/access.ts reads it and the app
 * hands it in here), none for an `open` route. Tokens are compared in constant time.
 */
import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "node:crypto";
import type { AppEnv } from "./app_env.ts";
import { DomainError } from "../errors/domain_error.ts";

/** A caller's role, weakest first. */
export type Role = "reader" | "editor" | "admin";

const RANK: Record<Role, number> = { reader: 0, editor: 1, admin: 2 };

/** A configured token. */
export interface AccessToken {
  name: string;
  token: string;
  role: Role;
}

/** `service.search.dsl.role`: a role, or `none` when the raw query DSL is off. */
export type DslRole = Role | "none";

/** The role a request needs, from its method and path; undefined for an open route. */
export type RoleRequirement = (method: string, path: string) => Role | undefined;

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

/** Checks the bearer token and the role; a no-op when no tokens are configured. */
export function authenticate(
  tokens: AccessToken[],
  requiredRole: RoleRequirement,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (tokens.length === 0) {
      c.set("role", "admin");
      return await next();
    }
    const needed = requiredRole(c.req.method, c.req.path);
    if (!needed) return await next();
    const header = c.req.header("authorization") ?? "";
    const match = header.match(/^Bearer\s+(\S+)\s*$/i);
    let found: AccessToken | undefined;
    if (match) {
      // Check every token, so the time does not tell which one (if any) matched.
      for (const candidate of tokens) {
        if (sameSecret(match[1], candidate.token)) found = candidate;
      }
    }
    if (!found) {
      c.header("WWW-Authenticate", 'Bearer realm="rdf-content-service"');
      throw new DomainError("unauthorized", {
        detail: match ? "The bearer token is not valid." : "Send Authorization: Bearer <token>.",
      });
    }
    if (RANK[found.role] < RANK[needed]) {
      throw new DomainError("forbidden", {
        detail:
          `This operation needs the ${needed} role; the token '${found.name}' has ${found.role}.`,
      });
    }
    c.set("role", found.role);
    await next();
  };
}
