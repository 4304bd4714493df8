/** `/api/admin/index`: indexing jobs (docs/api.md, Indexing). */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { jobNotFound } from "../http/problem.ts";
import { mayUseCollection, readableScope, requireCollection } from "../http/collection_access.ts";
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

  /** Whether the caller may see a job: it may export every collection the job indexes. */
  const visible = (c: Context<AppEnv>, job: IndexJob) =>
    collectionsOf(job.scope).every((uri) => mayUseCollection(c, uri, "export"));
  const collectionsOf = (scope: JobScope): string[] =>
    scope.type === "workspace"
      ? (deps.catalog.knows(scope.uri) ? deps.catalog.workspace(scope.uri).collections : [])
        .map((collection) => collection.uri)
      : [scope.uri];

  handle(app, indexIsRunning, async (c) => c.json(await runner.isRunningAnywhere()));

  handle(app, indexWorkspace, (c) => {
    const { workspace, clear, wait } = readQuery(c, indexWorkspace);
    // A workspace is indexed by whoever may index each of its collections.
    const collections = deps.catalog.workspace(workspace).collections;
    const refused = collections.find((collection) =>
      !mayUseCollection(c, collection.uri, "maintain")
    );
    if (refused) requireCollection(c, refused.uri, "maintain");
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
    // Only the caller's collections' jobs: read as many as may be listed, then filtered.
    if (readableScope(c) === undefined) return c.json(await runner.recent(limit));
    const jobs = await runner.recent(MAX_LISTED_JOBS);
    return c.json(jobs.filter((job) => visible(c, job)).slice(0, limit));
  });

  handle(app, getIndexJob, async (c) => {
    // Always present: the route's path has `{id}` (Hono cannot type a path built at run time).
    const id = c.req.param("id") ?? "";
    const job: IndexJob | undefined = await runner.find(id);
    // Another collection's job answers as a job that does not exist.
    if (!job || !visible(c, job)) throw jobNotFound("indexing", id);
    return c.json(job);
  });

  return app;
}
