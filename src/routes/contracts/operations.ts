/** Contracts of the operations routes: `/health`, `/ready`, `/openapi.json` and `/metrics`. */
import { z } from "zod";
import { defineContract } from "../../http/route_contract.ts";
import { NO_PARAMETERS } from "./shared.ts";

const TAGS = ["Operations"];

/** A readiness check of one backend. */
const CHECK = z.object({ ok: z.boolean(), detail: z.union([z.string(), z.number()]) });

/** `GET /health`: the process serves. */
export const health = defineContract({
  method: "GET",
  path: "/health",
  operationId: "health",
  summary: "Whether the process serves",
  description: "Open even when tokens are configured.",
  tags: TAGS,
  access: "open",
  query: NO_PARAMETERS,
  responses: {
    200: {
      description: "The process serves.",
      content: ["application/json"],
      schema: z.object({ status: z.literal("ok"), version: z.string() }),
    },
  },
  problems: {},
});

/** `GET /ready`: this instance can serve. */
export const ready = defineContract({
  method: "GET",
  path: "/ready",
  operationId: "ready",
  summary: "Whether this instance can serve, each backend's state, the index outbox backlog",
  description: "Answers within service.ready.timeoutMs; a check that has not answered by " +
    "then counts as failed. 503 only when the store cannot serve or the data directory " +
    "takes no writes; a search engine that is down (or another check failing) is `degraded` " +
    "with 200, listing the failed checks, unless service.ready.requireSearch is set.",
  tags: TAGS,
  access: "authenticated",
  query: NO_PARAMETERS,
  responses: {
    200: {
      description: "Ready, or degraded: the store serves, something else (search) does not.",
      content: ["application/json"],
      schema: z.union([
        z.object({ status: z.literal("ready"), checks: z.record(z.string(), CHECK) }),
        z.object({
          status: z.literal("degraded"),
          degraded: z.array(z.string()),
          checks: z.record(z.string(), CHECK),
        }),
      ]),
    },
    503: {
      description: "The store does not answer, or the data directory takes no writes.",
      content: ["application/json"],
      schema: z.object({ status: z.literal("unavailable"), checks: z.record(z.string(), CHECK) }),
    },
  },
  problems: {},
});

/** `GET /openapi.json`: this description. */
export const openApiDocument = defineContract({
  method: "GET",
  path: "/openapi.json",
  operationId: "openApiDocument",
  summary: "The OpenAPI 3.1 description of the service",
  tags: TAGS,
  access: "authenticated",
  query: NO_PARAMETERS,
  responses: { 200: { description: "This document.", content: ["application/json"] } },
  problems: {},
});

/** `GET /metrics`: the Prometheus metrics. */
export const metrics = defineContract({
  method: "GET",
  path: "/metrics",
  operationId: "metrics",
  summary: "Metrics in the Prometheus text format",
  description: "Requests by route and status with their latency, store and search engine calls " +
    "with their latency and errors, the index outbox backlog, indexing job progress and item " +
    "cache hits and misses (docs/operations.md).",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  responses: {
    200: { description: "The metrics (text format 0.0.4).", content: ["text/plain"] },
  },
  problems: {},
});

/** The operations contracts. */
export const OPERATION_CONTRACTS = [health, ready, openApiDocument, metrics];
