/**
 * The audit of refused access (docs/SECURITY.md): each refusal is one structured log line
 * (principal, collection, operation, status) and one count in `/metrics`
 * (`rcs_access_refused_total`). A refusal that answers 404 (a collection the caller may not
 * read answers as an unknown one) is logged as what it is.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { log } from "../log/logger.ts";
import { principalName } from "../catalog/access_policy.ts";

/** Logs and counts one refusal of the request at hand. */
export function refusal(
  c: Context<AppEnv>,
  { status, collection }: { status: number; collection?: string },
): void {
  const principal = c.get("principal");
  const operation = c.get("operation") ?? `${c.req.method} ${c.req.path}`;
  log("warn", "access refused", {
    principal: principal ? principalName(principal) : "anonymous",
    collection,
    operation,
    status,
    requestId: c.get("requestId"),
  });
  c.get("refusals")?.recordRefusal(operation, status);
}
