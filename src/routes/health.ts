/**
 * `/health` (the process serves: liveness) and `/ready` (this instance can serve: readiness).
 *
 * `/ready` answers within `service.ready.timeoutMs`: its checks run side by side, and one
 * that has not answered by then counts as failed. Only the core makes it 503 (the store,
 * and the data directory taking writes); any other failing check (search, the outbox
 * backlog) makes it `degraded` with 200, so that a search outage, shared by every instance,
 * does not take them all out of a load balancer. `service.ready.requireSearch` makes search
 * core too.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { health, ready } from "./contracts/operations.ts";

type CheckResult = { ok: boolean; detail: string | number };
type Check = () => Promise<CheckResult>;

/** Checks whose failure makes the instance unready. */
const CORE_CHECKS = new Set(["store", "storage"]);

/** The health routes. */
export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { timeoutMs, requireSearch } = deps.config.service.ready;
  const core = new Set(requireSearch ? [...CORE_CHECKS, "search"] : CORE_CHECKS);
  const checks: Record<string, Check> = {
    store: () => deps.store.health(),
    ...deps.readiness,
  };
  // A check still running from an earlier /ready is joined, not started again: a hung
  // engine then costs one pending call, however often /ready is asked.
  const running = new Map<string, Promise<CheckResult>>();
  const start = (name: string): Promise<CheckResult> => {
    let pending = running.get(name);
    if (!pending) {
      pending = Promise.resolve()
        .then(checks[name])
        .catch((error) => ({ ok: false, detail: String(error) }))
        .finally(() => running.delete(name));
      running.set(name, pending);
    }
    return pending;
  };
  handle(app, health, (c) => c.json({ status: "ok", version: deps.version }));
  handle(app, ready, async (c) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const budget = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const names = Object.keys(checks);
    const results = await Promise.all(names.map(async (name) => {
      const result = await Promise.race([start(name), budget]);
      return [
        name,
        result === "timeout"
          ? { ok: false, detail: `no answer within ${timeoutMs} ms (service.ready.timeoutMs)` }
          : result,
      ] as const;
    }));
    clearTimeout(timer);
    const answered = Object.fromEntries(results);
    const failed = names.filter((name) => !answered[name].ok);
    deps.metrics.recordReadiness(answered);
    if (failed.some((name) => core.has(name))) {
      return c.json({ status: "unavailable", checks: answered }, 503);
    }
    if (failed.length > 0) {
      return c.json({ status: "degraded", degraded: failed, checks: answered }, 200);
    }
    return c.json({ status: "ready", checks: answered }, 200);
  });
  return app;
}
