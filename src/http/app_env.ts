/** The Hono environment shared by every route and middleware. */
import type { IncomingMessage } from "node:http";

/** Bindings and per-request variables of the app. */
export interface AppEnv {
  Bindings: {
    /** The raw Node request when served through node:http: the only way to read GET bodies. */
    incoming?: IncomingMessage;
  };
  Variables: {
    requestId: string;
    /** Role of the authenticated caller (always `admin` when no tokens are configured). */
    role: "reader" | "editor" | "admin";
    /**
     * Who called, as the bearer token tells (src/http/auth.ts): a token's name and role, or
     * nobody, with whether a token that matches none was sent.
     */
    caller: { name: string; role: "reader" | "editor" | "admin" } | { presentedToken: boolean };
  };
}
