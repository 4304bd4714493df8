/** `/api/admin/index`: indexing jobs (API.md, Indexing). */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "../app_deps.ts";
import { booleanParam, integerParam, iriList, requiredIri } from "../http/params.ts";
import { ProblemError } from "../http/problem.ts";
import type { IndexJob, JobScope } from "../indexing/job_store.ts";

/** Most jobs `GET /api/admin/index/jobs` lists. */
const MAX_LISTED_JOBS = 1000;

/** The indexing routes. */
export function indexingRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const runner = deps.indexJobs;

  /** Starts the job; `wait=true` answers 200 with the finished job, else 202 at once. */
  const start = async (c: Context<AppEnv>, scope: JobScope, clear: boolean) => {
    const wait = booleanParam(c, "wait");
    const job = runner.start(scope, { clear });
    c.header("Location", `/api/admin/index/jobs/${encodeURIComponent(job.id)}`);
    if (!wait) return c.json(job, 202);
    return c.json(await runner.wait(job.id) ?? job, 200);
  };

  app.get("/api/admin/index/is-running", (c) => c.json(runner.isRunning()));

  app.post("/api/admin/index", (c) => {
    const workspace = requiredIri(c, "workspace");
    return start(c, { type: "workspace", uri: workspace }, booleanParam(c, "clear"));
  });

  app.post("/api/admin/index/collection", (c) => {
    const collection = requiredIri(c, "collection");
    return start(c, { type: "collection", uri: collection }, booleanParam(c, "clear"));
  });

  app.post("/api/admin/index/items", (c) => {
    const collection = requiredIri(c, "collection");
    const items = iriList(c, "item", { min: 1 });
    return start(c, { type: "items", uri: collection, items }, false);
  });

  app.get("/api/admin/index/jobs", (c) => {
    const limit = Math.min(integerParam(c, "limit", 50), MAX_LISTED_JOBS);
    return c.json(runner.recent(limit));
  });

  app.get("/api/admin/index/jobs/:id", (c) => {
    const id = c.req.param("id");
    const job: IndexJob | undefined = runner.get(id);
    if (!job) {
      throw new ProblemError(
        404,
        "job-not-found",
        "Job not found",
        `No indexing job ${JSON.stringify(id)} is recorded.`,
      );
    }
    return c.json(job);
  });

  return app;
}
