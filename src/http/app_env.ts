/** The Hono environment shared by every route and middleware. */
import type { IncomingMessage } from "node:http";
import type { Principal } from "../catalog/access_policy.ts";
import type { DomainError } from "../errors/domain_error.ts";
import type { CollectionGate } from "./collection_gate.ts";

/** Where refusals of access are counted (`ServiceMetrics`). */
export interface RefusalCounter {
  recordRefusal(operation: string, status: number): void;
}

/** Bindings and per-request variables of the app. */
export interface AppEnv {
  Bindings: {
    /** The raw Node request when served through node:http: the only way to read GET bodies. */
    incoming?: IncomingMessage;
  };
  Variables: {
    requestId: string;
    /**
     * Who called (src/http/auth.ts): a token, a JWT identity, or the local admin when no
     * security is configured; unset when the caller is not authenticated.
     */
    principal?: Principal;
    /** Why the caller is not authenticated (answered by routes that need a caller). */
    authProblem?: DomainError;
    /** The contract's operation id, for the audit of refusals. */
    operation?: string;
    /** Where refusals are counted. */
    refusals?: RefusalCounter;
    /** The per-collection access check (src/http/collection_access.ts). */
    collections?: CollectionGate;
  };
}
