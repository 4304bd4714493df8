/** Contracts of `/api/admin/history/prune` (docs/api.md, History retention and pruning). */
import { z } from "zod";
import { booleanParam, integerParam, optionalIri } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { BAD_PARAMETERS, COUNT, NO_PARAMETERS } from "./shared.ts";

const TAGS = ["Item history"];
const LOCATION = { Location: "`/api/admin/history/prune/jobs/{id}`." };

/** A pruning job as the routes answer it. */
const PRUNE_JOB = z.object({
  id: z.string(),
  collection: z.string().nullable().meta({
    description: "The collection asked for; null: every collection.",
  }),
  state: z.enum(["queued", "running", "succeeded", "failed"]),
  startedAt: z.string().nullable().meta({
    description: "Also the instant retentions by duration are measured from.",
  }),
  finishedAt: z.string().nullable(),
  total: COUNT.meta({
    description: "Items with versions in the collections whose retention is not `all`, " +
      "counted as the job starts (items first written since that the pass meets are added).",
  }),
  processed: COUNT.meta({ description: "Items gone through so far." }),
  pruned: COUNT.meta({ description: "Versions removed so far." }),
  collections: z.array(z.object({
    collection: z.string(),
    retention: z.string().meta({ description: "As configured; `all`: skipped." }),
    items: COUNT,
    processed: COUNT,
    pruned: COUNT,
  })),
  errors: z.array(z.object({ item: z.string().nullable(), message: z.string() })),
});

/** `POST /api/admin/history/prune`: remove the versions outside the retention. */
export const pruneHistory = defineContract({
  method: "POST",
  path: "/api/admin/history/prune",
  operationId: "pruneHistory",
  summary: "Prune item history to each collection's retention, as a job",
  description: "Removes every version the collection's `history.retention` (else " +
    "`service.history.retention`) does not keep, never an item's newest version (a deleted " +
    "item keeps its delete). One pruning job runs at a time.",
  tags: TAGS,
  access: "admin",
  query: z.object({
    collection: optionalIri("The collection to prune (an absolute IRI); every one when omitted."),
    wait: booleanParam("`true`: answer when the job has ended, with 200 and the finished job."),
  }),
  responses: {
    202: {
      description: "Started: the job as it stands (follow `Location`).",
      content: ["application/json"],
      schema: PRUNE_JOB,
      headers: LOCATION,
    },
    200: {
      description: "With `wait=true`: the finished job.",
      content: ["application/json"],
      schema: PRUNE_JOB,
      headers: LOCATION,
    },
  },
  problems: {
    400: BAD_PARAMETERS,
    404: "The collection is not configured (`collection-not-found`).",
    409: "A pruning job runs, on this or another instance (`prune-running`, with `runningJob`).",
    501: "The store keeps no history, or cannot prune it yet (`history-unsupported`).",
  },
});

/** `GET /api/admin/history/prune/jobs`: recent pruning jobs. */
export const listPruneJobs = defineContract({
  method: "GET",
  path: "/api/admin/history/prune/jobs",
  operationId: "listPruneJobs",
  summary: "Recent history pruning jobs, newest first",
  tags: TAGS,
  access: "admin",
  query: z.object({ limit: integerParam("Most jobs to list (at most 1000).", 50) }),
  responses: {
    200: { description: "The jobs.", content: ["application/json"], schema: z.array(PRUNE_JOB) },
  },
  problems: { 400: BAD_PARAMETERS },
});

/** `GET /api/admin/history/prune/jobs/{id}`: one pruning job. */
export const getPruneJob = defineContract({
  method: "GET",
  path: "/api/admin/history/prune/jobs/{id}",
  operationId: "getPruneJob",
  summary: "One history pruning job, with its progress",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  pathParams: z.object({ id: z.string().meta({ description: "The job's id." }) }),
  responses: {
    200: { description: "The job.", content: ["application/json"], schema: PRUNE_JOB },
  },
  problems: { 404: "No such job (`job-not-found`)." },
});

/** The history administration contracts. */
export const HISTORY_ADMIN_CONTRACTS = [pruneHistory, listPruneJobs, getPruneJob];
