/**
 * A route contract: everything a client needs to know about one operation — method, path,
 * parameters (as the zod schemas that validate them), body media types, responses and the
 * role it needs — declared once. Routes are registered from their contract (`handle`, which
 * puts the contract's role check in front of the handler), requests are validated against
 * it (`readQuery`), and the OpenAPI document is built from the list of contracts, so the
 * four cannot disagree. A contract that names a collection right has the caller's access to
 * the collection checked too (`collection_access.ts`).
 */
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "./app_env.ts";
import { type Access, authorize } from "./auth.ts";
import type { CollectionRight } from "../catalog/access_policy.ts";
import { requireCollection } from "./collection_access.ts";

/** HTTP methods the service routes. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One response an operation may give. */
export interface ResponseContract {
  description: string;
  /** Media types of the body; none for an empty body. */
  content?: string[];
  /** The JSON body's shape, for JSON media types (documentation only). */
  schema?: z.ZodType;
  /** Response headers worth knowing, name → description. */
  headers?: Record<string, string>;
}

/** The request body an operation reads. */
export interface BodyContract {
  description: string;
  required: boolean;
  /** Accepted media types; a schema where the body has a shape worth describing. */
  content: Record<string, z.ZodType | undefined>;
}

/** One operation of the HTTP surface. */
export interface RouteContract<Query extends z.ZodObject = z.ZodObject> {
  method: HttpMethod;
  /** OpenAPI path syntax: `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /**
   * What the caller needs when security is configured: a global role, any valid identity
   * (`authenticated`), or nothing (`open`).
   */
  access: Access;
  /**
   * The right on the `collection` query parameter's collection this operation needs
   * (docs/SECURITY.md), checked before the handler runs: an unreadable collection answers
   * as an unknown one, a readable one the caller may not write `403`.
   */
  collectionRight?: CollectionRight;
  /** The query parameters: one zod field per parameter, in the order they are checked. */
  query: Query;
  /** Path parameters, one string field per `{name}` in `path`. */
  pathParams?: z.ZodObject;
  body?: BodyContract;
  /** Successful (and other non-problem) responses by status. */
  responses: Record<number, ResponseContract>;
  /** Problem+json responses by status, with what each means here. */
  problems: Record<number, string>;
}

/** Declares a contract, keeping the exact query type for `readQuery`. */
export function defineContract<Query extends z.ZodObject>(
  contract: RouteContract<Query>,
): RouteContract<Query> {
  return contract;
}

/** The contract's path in Hono syntax: `/jobs/{id}` → `/jobs/:id`. */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** A route handler. */
export type ContractHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/**
 * Registers `handler` for the contract's method and path on `app`, behind the check of the
 * role the contract declares.
 */
export function handle(app: Hono<AppEnv>, contract: RouteContract, handler: ContractHandler): void {
  const right = contract.collectionRight;
  app.on(
    contract.method,
    honoPath(contract.path),
    async (c, next) => {
      c.set("operation", contract.operationId);
      await next();
    },
    authorize(contract.access),
    async (c, next) => {
      const collection = c.req.query("collection");
      // A missing or unknown collection is the handler's to answer, as without security.
      if (right && collection && c.get("collections")?.catalog.hasCollection(collection)) {
        requireCollection(c, collection, right);
      }
      await next();
    },
    handler,
  );
}
