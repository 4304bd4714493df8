/** Contracts of `/api/admin/index` (docs/api.md, Indexing). */
import { z } from "zod";
import { booleanParam, integerParam, iriList, requiredIri } from "../../http/query_schema.ts";
import { defineContract, type ResponseContract } from "../../http/route_contract.ts";
import { BAD_PARAMETERS, COLLECTION, COUNT, NO_PARAMETERS } from "./shared.ts";

const TAGS = ["Indexing"];

/** An indexing job as the routes answer it. */
const JOB = z.object({
  id: z.string(),
  scope: z.object({
    type: z.enum(["workspace", "collection", "items"]),
    uri: z.string(),
    items: z.array(z.string()).optional(),
  }),
  clear: z.boolean(),
  state: z.enum(["queued", "running", "succeeded", "failed"]),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  total: COUNT,
  processed: COUNT,
  indexed: COUNT,
  deleted: COUNT,
  failed: COUNT,
  errors: z.array(z.object({ item: z.string().nullable(), message: z.string() })),
});

const WAIT = booleanParam("`true`: answer when the job has ended, with 200 and the finished job.");
const CLEAR = booleanParam(
  "`true`: rebuild the index from nothing into a new index that replaces the old one only " +
    "when complete.",
);

/** The answers of a job start. */
const STARTED: Record<number, ResponseContract> = {
  202: {
    description: "Started.",
    content: ["application/json"],
    schema: JOB,
    headers: { Location: "`/api/admin/index/jobs/{id}`." },
  },
  200: {
    description: "With `wait=true`: the finished job.",
    content: ["application/json"],
    schema: JOB,
    headers: { Location: "`/api/admin/index/jobs/{id}`." },
  },
};

const START_PROBLEMS = {
  400: BAD_PARAMETERS,
  409: "A job is running already; the problem names it (`indexing-running`, with `runningJob`).",
};

/** `GET /api/admin/index/is-running`. */
export const indexIsRunning = defineContract({
  method: "GET",
  path: "/api/admin/index/is-running",
  operationId: "indexIsRunning",
  summary: "Whether an indexing job runs",
  tags: TAGS,
  access: "authenticated",
  query: NO_PARAMETERS,
  responses: {
    200: { description: "`true` or `false`.", content: ["application/json"], schema: z.boolean() },
  },
  problems: {},
});

/** `POST /api/admin/index`: index a workspace. */
export const indexWorkspace = defineContract({
  method: "POST",
  path: "/api/admin/index",
  operationId: "indexWorkspace",
  summary: "Index every collection of a workspace",
  description: "Without `clear`, documents of items that no longer exist are removed.",
  tags: TAGS,
  access: "authenticated",
  query: z.object({
    workspace: requiredIri("The workspace, by its URI as configured (an absolute IRI)."),
    clear: CLEAR,
    wait: WAIT,
  }),
  responses: STARTED,
  problems: { ...START_PROBLEMS, 404: "The workspace is not configured (`workspace-not-found`)." },
});

/** `POST /api/admin/index/collection`: index a collection. */
export const indexCollection = defineContract({
  method: "POST",
  path: "/api/admin/index/collection",
  operationId: "indexCollection",
  summary: "Index a collection",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "maintain",
  query: z.object({ collection: COLLECTION, clear: CLEAR, wait: WAIT }),
  responses: STARTED,
  problems: { ...START_PROBLEMS, 404: "The collection is not configured." },
});

/** `POST /api/admin/index/items`: index listed items. */
export const indexItems = defineContract({
  method: "POST",
  path: "/api/admin/index/items",
  operationId: "indexItems",
  summary: "Index listed items of a collection",
  description: "Listed items that no longer exist are removed from the index.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "maintain",
  query: z.object({
    collection: COLLECTION,
    item: iriList("The items to index, repeated: `item=A&item=B`.", { min: 1 }),
    wait: WAIT,
  }),
  responses: STARTED,
  problems: { ...START_PROBLEMS, 404: "The collection is not configured." },
});

/** `GET /api/admin/index/jobs`: recent jobs. */
export const listIndexJobs = defineContract({
  method: "GET",
  path: "/api/admin/index/jobs",
  operationId: "listIndexJobs",
  summary: "Recent indexing jobs, newest first",
  tags: TAGS,
  access: "authenticated",
  query: z.object({ limit: integerParam("Most jobs to list (at most 1000).", 50) }),
  responses: {
    200: { description: "The jobs.", content: ["application/json"], schema: z.array(JOB) },
  },
  problems: { 400: BAD_PARAMETERS },
});

/** `GET /api/admin/index/jobs/{id}`: one job. */
export const getIndexJob = defineContract({
  method: "GET",
  path: "/api/admin/index/jobs/{id}",
  operationId: "getIndexJob",
  summary: "One indexing job",
  tags: TAGS,
  access: "authenticated",
  query: NO_PARAMETERS,
  pathParams: z.object({ id: z.string().meta({ description: "The job's id." }) }),
  responses: { 200: { description: "The job.", content: ["application/json"], schema: JOB } },
  problems: { 404: "No such job (`job-not-found`)." },
});

/** The indexing contracts. */
export const INDEXING_CONTRACTS = [
  indexIsRunning,
  indexWorkspace,
  indexCollection,
  indexItems,
  listIndexJobs,
  getIndexJob,
];
