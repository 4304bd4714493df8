/**
 * `/api/admin/webhooks`: webhook delivery as it stands, and dead letters put back
 * (docs/api.md, Webhooks). The logic is `src/webhooks/webhook_admin.ts`.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { WebhookAdmin } from "../webhooks/webhook_admin.ts";
import { listWebhooks, redeliverWebhook } from "./contracts/webhooks_admin.ts";

/** The webhook administration routes. */
export function webhookAdminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const admin = (): WebhookAdmin => {
    if (deps.webhooks) return deps.webhooks;
    throw new DomainError("changes-unsupported", {
      detail: `The ${deps.store.kind} store keeps no change feed, so webhooks are not delivered.`,
    });
  };

  handle(app, listWebhooks, async (c) => c.json(await admin().report()));

  handle(app, redeliverWebhook, async (c) => {
    const { id } = readQuery(c, redeliverWebhook);
    return c.json(await admin().redeliver(id), 202);
  });

  return app;
}
