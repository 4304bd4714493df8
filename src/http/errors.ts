/**
 * The app's last line: every error and unknown route becomes problem+json.
 *
 * Unexpected exceptions are logged with their stack and answered as a 500 naming only the
 * request id, so nothing internal leaks to clients.
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app_env.ts";
import { type ProblemBody, ProblemError, problemOf } from "./problem.ts";
import { DomainError } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";

/** Media type of every error response. */
export const PROBLEM_JSON = "application/problem+json";

/** Renders a problem body as a response. */
export function problemResponse(c: Context<AppEnv>, body: ProblemBody): Response {
  const headers = new Headers({ "Content-Type": PROBLEM_JSON });
  const id = c.get("requestId");
  if (id) headers.set("X-Request-Id", id);
  return new Response(JSON.stringify(body), { status: body.status, headers });
}

/** Maps thrown errors to problem responses. */
export const handleError: ErrorHandler<AppEnv> = (error, c) => {
  const problem = problemOf(error);
  if (problem) {
    const response = problemResponse(c, problem.toBody());
    if (problem.status === 401) {
      response.headers.set("WWW-Authenticate", 'Bearer realm="rdf-content-service"');
    }
    // A problem that knows when to come back (an engine marked down, an unknown outcome).
    const retryAfter = problem.extensions.retryAfter;
    if (typeof retryAfter === "number") response.headers.set("Retry-After", String(retryAfter));
    // A deleted item points at the history that remains (`item-deleted`).
    const history = problem.extensions.history;
    if (typeof history === "string") response.headers.set("Link", `<${history}>; rel="history"`);
    return response;
  }
  if (error instanceof HTTPException) {
    return problemResponse(c, {
      type: "/problems/http-error",
      title: error.message || "HTTP error",
      status: error.status,
      detail: error.message || `HTTP ${error.status}`,
    });
  }
  const requestId = c.get("requestId");
  log("error", "unhandled error", {
    requestId,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  const internal = new DomainError("internal-error", {
    detail: `The service failed to handle this request; quote request id ${requestId}.`,
    extensions: { requestId },
  });
  return problemResponse(c, new ProblemError(internal).toBody());
};

/** Unknown routes are problem+json too. */
export const handleNotFound: NotFoundHandler<AppEnv> = (c) =>
  problemResponse(
    c,
    new ProblemError(
      new DomainError("not-found", { detail: `No route for ${c.req.method} ${c.req.path}.` }),
    ).toBody(),
  );
