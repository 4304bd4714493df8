/** Contracts of `/api/admin/webhooks` (docs/api.md, Webhooks). */
import { z } from "zod";
import { requiredInteger } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { BAD_PARAMETERS, COUNT, NO_PARAMETERS } from "./shared.ts";
import { CHANGE } from "./changes.ts";

const TAGS = ["Change feed"];

const ATTEMPT = z.object({
  at: z.string(),
  status: z.int().nullable().meta({ description: "The endpoint's status; null: no answer." }),
  error: z.string().nullable().meta({ description: "Why it failed; null: it succeeded." }),
});

/** A change an endpoint refused for `service.webhooks.retryForMs`. */
const DEAD_LETTER = z.object({
  id: z.int().meta({ description: "For `POST /api/admin/webhooks/redeliver?id=`." }),
  collection: z.string(),
  url: z.string(),
  change: CHANGE,
  state: z.enum(["dead", "queued"]).meta({
    description: "`dead`: given up; `queued`: put back, delivered before the next change.",
  }),
  attempts: COUNT,
  deadAt: z.string(),
  last: ATTEMPT,
});

const ENDPOINT = z.object({
  collection: z.string(),
  url: z.string().meta({ description: "The endpoint (its secret is never shown)." }),
  position: z.string().nullable().meta({
    description: "The cursor of the last change delivered or dead-lettered; null before the " +
      "first look.",
  }),
  pending: COUNT.meta({ description: "Changes after the position, counted up to 1000." }),
  attempts: COUNT.meta({ description: "Failed attempts at the change due now." }),
  failingSince: z.string().nullable(),
  nextAttempt: z.string().nullable().meta({ description: "When the change due is retried." }),
  last: ATTEMPT.nullable().meta({ description: "The newest attempt, of any change." }),
  lease: z.object({
    holder: z.string().meta({ description: "The id of the instance that delivers to it." }),
    until: z.string().meta({ description: "When its lease ends unless renewed; past: ended." }),
  }).nullable().meta({
    description: "Which instance of several on a SPARQL store delivers to the endpoint; " +
      "null on the embedded store.",
  }),
  deadLetters: z.array(DEAD_LETTER),
});

const UNSUPPORTED = "The store keeps no change feed, so no webhook is delivered " +
  "(`changes-unsupported`).";

/** `GET /api/admin/webhooks`: every endpoint's delivery. */
export const listWebhooks = defineContract({
  method: "GET",
  path: "/api/admin/webhooks",
  operationId: "listWebhooks",
  summary: "Every webhook endpoint's delivery: position, failures, dead letters",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  responses: {
    200: {
      description: "The endpoints of every collection's `webhooks`.",
      content: ["application/json"],
      schema: z.array(ENDPOINT),
    },
  },
  problems: { 501: UNSUPPORTED },
});

/** `POST /api/admin/webhooks/redeliver?id=`: a dead letter put back. */
export const redeliverWebhook = defineContract({
  method: "POST",
  path: "/api/admin/webhooks/redeliver",
  operationId: "redeliverWebhook",
  summary: "Put a dead letter back for delivery",
  description: "The change is delivered again (same `webhook-id`) before the endpoint's next " +
    "feed change, with the same retries; once delivered it leaves the list, refused again " +
    "for `service.webhooks.retryForMs` it is dead again.",
  tags: TAGS,
  access: "admin",
  query: z.object({ id: requiredInteger("The dead letter's `id`.") }),
  responses: {
    202: {
      description: "Queued: the dead letter, now `queued`.",
      content: ["application/json"],
      schema: DEAD_LETTER,
    },
  },
  problems: {
    400: BAD_PARAMETERS,
    404: "No dead letter of this id (`dead-letter-not-found`).",
    501: UNSUPPORTED,
  },
});

/** The webhook administration contracts. */
export const WEBHOOK_ADMIN_CONTRACTS = [listWebhooks, redeliverWebhook];
