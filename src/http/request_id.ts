/** `X-Request-Id` on every response: the client's own if it sent a sane one, else a new one. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app_env.ts";

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Assigns the request id before anything else runs. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sent = c.req.header("x-request-id");
    const id = sent && ACCEPTABLE.test(sent) ? sent : crypto.randomUUID();
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}
