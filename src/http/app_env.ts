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
  };
}
