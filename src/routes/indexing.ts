/** `/api/admin/index`: indexing jobs (docs/api.md, Indexing). */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { jobNotFound } from "../http/problem.ts";
import type { IndexJob, JobScope } from "../indexing/index_job.ts";
import {
  getIndexJob,
  indexCollection,
  indexIsRunning,
  indexItems,
  indexWorkspace,
  listIndexJobs,
} from "./contracts/indexing.ts";

/** Most jobs `GET /api/admin/index/jobs` lists. */
const MAX_LISTED_JOBS = 1000;

/** The indexing routes. */
export function indexingRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const runner = deps.indexJobs;

  /** Starts the job; `wait=true` answers 200 with the finished job, else 202 at once. */
  const start = async (c: Context<AppEnv>, scope: JobScope, clear: boolean, wait: boolean) => {
    const job = await runner.start(scope, { clear });
    c.header("Location", `/api/admin/index/jobs/${encodeURIComponent(job.id)}`);
    if (!wait) return c.json(job, 202);
    return c.json(await runner.wait(job.id) ?? job, 200);
  };

  handle(app, indexIsRunning, async (c) => c.json(await runner.isRunningAnywhere()));

  handle(app, indexWorkspace, (c) => {
    const { workspace, clear, wait } = readQuery(c, indexWorkspace);
    return start(c, { type: "workspace", uri: workspace }, clear, wait);
  });

  handle(app, indexCollection, (c) => {
    const { collection, clear, wait } = readQuery(c, indexCollection);
    return start(c, { type: "collection", uri: collection }, clear, wait);
  });

  handle(app, indexItems, (c) => {
    const { collection, item: items, wait } = readQuery(c, indexItems);
    return start(c, { type: "items", uri: collection, items }, false, wait);
  });

  handle(app, listIndexJobs, async (c) => {
    const limit = Math.min(readQuery(c, listIndexJobs).limit, MAX_LISTED_JOBS);
    return c.json(await runner.recent(limit));
  });

  handle(app, getIndexJob, async (c) => {
    // Always present: the route's path has `{id}` (Hono cannot type a path built at run time).
    const id = c.req.param("id") ?? "";
    const job: IndexJob | undefined = await runner.find(id);
    if (!job) throw jobNotFound("indexing", id);
    return c.json(job);
  });

  return app;
}
