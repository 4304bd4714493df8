/**
 * Who is calling (docs/SECURITY.md): a configured bearer token, or a JWT from the identity
 * provider (`service.security.oidc`, verified by `oidc.ts`).
 *
 * Without tokens and without an identity provider the service serves loopback only
 * (enforced at start-up) and every caller is an admin. Otherwise {@link authenticate} runs
 * before every route and only reads the bearer token: it finds whose it is, if anyone's, and
 * keeps why not. Each route then checks what its contract declares ({@link authorize},
 * attached when the route is registered from its contract, src/http/route_contract.ts): a
 * global role, any valid identity (`authenticated`: what it sees is filtered per
 * collection), or nothing (`open`). Tokens are compared in constant time.
 */
import type { Context, MiddlewareHandler } from "hono";
import { timingSafeEqual } from "node:crypto";
import type { AppEnv } from "./app_env.ts";
import { DomainError, isProblem } from "../errors/domain_error.ts";
import {
  authorName,
  hasRole,
  type Principal,
  principalName,
  type Role,
} from "../catalog/access_policy.ts";
import { refusal } from "./access_audit.ts";

export type { Role };

/** What a route needs: a role, any valid identity, or nothing (`open`). */
export type Access = Role | "authenticated" | "open";

/** A configured token. */
export interface AccessToken {
  name: string;
  token: string;
  role: Role;
}

/** `service.search.opensearch.dsl.role`: a role, or `none` when the raw query DSL is off. */
export type DslRole = Role | "none";

/** The identity provider's side of authentication: JWT bearer tokens (`oidc.ts`). */
export interface JwtIdentities {
  /** Whether a bearer token is a JWT (and so not a configured token). */
  looksLikeJwt(token: string): boolean;
  /** The token's subject and groups, or `unauthorized` with the reason. */
  verify(token: string): Promise<{ subject: string; groups: string[] }>;
  /** Group → global role (`service.security.oidc.roles`). */
  roles: Record<string, Role>;
}

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

/** The strongest role the groups map to; none when none maps. */
export function roleOfGroups(
  groups: readonly string[],
  roles: Record<string, Role>,
): Role | undefined {
  let best: Role | undefined;
  for (const group of groups) {
    const role = roles[group];
    if (role !== undefined && (best === undefined || hasRole(role, best))) best = role;
  }
  return best;
}

/** Whether a caller must prove who it is: tokens or an identity provider are configured. */
export function securityOn(tokens: AccessToken[], jwt: JwtIdentities | undefined): boolean {
  return tokens.length > 0 || jwt !== undefined;
}

/**
 * Reads the bearer token and records who the caller is; refuses nothing, since whether a
 * caller may go on is the route's to say ({@link authorize}). Every caller is an admin
 * when no security is configured.
 */
export function authenticate(
  tokens: AccessToken[],
  jwt?: JwtIdentities,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!securityOn(tokens, jwt)) {
      c.set("principal", { kind: "local", name: "local", groups: [], role: "admin" });
      return await next();
    }
    const header = c.req.header("authorization");
    const bearer = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (bearer === undefined) {
      c.set(
        "authProblem",
        new DomainError("unauthorized", {
          detail: "Send Authorization: Bearer <token>.",
        }),
      );
      return await next();
    }
    if (jwt?.looksLikeJwt(bearer)) {
      try {
        const identity = await jwt.verify(bearer);
        c.set("principal", {
          kind: "user",
          name: identity.subject,
          groups: identity.groups,
          role: roleOfGroups(identity.groups, jwt.roles),
        });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        c.set("authProblem", error);
      }
      return await next();
    }
    let found: AccessToken | undefined;
    // Check every token, so the time does not tell which one (if any) matched.
    for (const candidate of tokens) {
      if (sameSecret(bearer, candidate.token)) found = candidate;
    }
    if (found) {
      c.set("principal", { kind: "token", name: found.name, groups: [], role: found.role });
    } else {
      c.set(
        "authProblem",
        new DomainError("unauthorized", {
          detail: "The bearer token is not valid.",
        }),
      );
    }
    await next();
  };
}

/** The authenticated caller, or the 401 that says why there is none. */
export function requirePrincipal(c: Context<AppEnv>): Principal {
  const principal = c.get("principal");
  if (principal !== undefined) return principal;
  const problem = c.get("authProblem") ??
    new DomainError("unauthorized", { detail: "Send Authorization: Bearer <token>." });
  refusal(c, { status: isProblem(problem, "unauthorized") ? 401 : 503 });
  throw problem;
}

/** Who the caller is as item history records a write (`token:NAME`, `user:SUB`, `local`). */
export function author(c: Context<AppEnv>): string {
  return authorName(requirePrincipal(c));
}

/** Throws 401 unless the caller is authenticated, 403 unless with at least `needed`. */
export function requireRole(c: Context<AppEnv>, needed: Role | "authenticated"): Principal {
  const principal = requirePrincipal(c);
  if (needed !== "authenticated" && !hasRole(principal.role, needed)) {
    refusal(c, { status: 403 });
    throw new DomainError("forbidden", {
      detail: `This operation needs the ${needed} role; ${principalName(principal)} has ${
        principal.role ?? "no global role"
      }.`,
    });
  }
  return principal;
}

/** The per-route check of what its contract declares; `open` lets everyone through. */
export function authorize(access: Access): MiddlewareHandler<AppEnv> {
  if (access === "open") return async (_c, next) => await next();
  return async (c, next) => {
    requireRole(c, access);
    await next();
  };
}
