/**
 * `/api/admin/history/prune`: history pruning jobs (docs/api.md, History retention and
 * pruning). The pass itself is `src/items/history_prune_jobs.ts`.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { jobNotFound } from "../http/problem.ts";
import { getPruneJob, listPruneJobs, pruneHistory } from "./contracts/history_admin.ts";

/** Most jobs `GET /api/admin/history/prune/jobs` lists. */
const MAX_LISTED_JOBS = 1000;

/** The history administration routes. */
export function historyAdminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const runner = deps.pruneJobs;

  handle(app, pruneHistory, async (c) => {
    const { collection, wait } = readQuery(c, pruneHistory);
    const { job, done } = await runner.start(collection);
    c.header("Location", `/api/admin/history/prune/jobs/${encodeURIComponent(job.id)}`);
    return wait ? c.json(await done, 200) : c.json(job, 202);
  });

  handle(app, listPruneJobs, async (c) => {
    const limit = Math.min(readQuery(c, listPruneJobs).limit, MAX_LISTED_JOBS);
    return c.json(await runner.recent(limit));
  });

  handle(app, getPruneJob, async (c) => {
    const id = c.req.param("id") ?? "";
    const job = await runner.find(id);
    if (!job) throw jobNotFound("history pruning", id);
    return c.json(job);
  });

  return app;
}
