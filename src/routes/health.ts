/** `/health` (the process serves) and `/ready` (every backend answers). */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { handle } from "../http/route_contract.ts";
import { health, ready } from "./contracts/operations.ts";

/** The health routes. */
export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  handle(app, health, (c) => c.json({ status: "ok", version: deps.version }));
  handle(app, ready, async (c) => {
    const checks: Record<string, { ok: boolean; detail: string | number }> = {
      store: await deps.store.health().catch((error) => ({ ok: false, detail: String(error) })),
    };
    for (const [name, check] of Object.entries(deps.readiness)) {
      checks[name] = await check().catch((error) => ({ ok: false, detail: String(error) }));
    }
    const ready = Object.values(checks).every((check) => check.ok);
    return c.json({ status: ready ? "ready" : "unavailable", checks }, ready ? 200 : 503);
  });
  return app;
}
