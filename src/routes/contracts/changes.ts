/** The contract of a collection's change feed (docs/api.md, Change feed). */
import { z } from "zod";
import { integerParam, optionalText } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { CHANGE_OPERATIONS } from "../../store/change_feed.ts";
import { BAD_PARAMETERS, COLLECTION } from "./shared.ts";

/** Most changes one page (or one event batch) holds. */
export const MAX_CHANGES_PER_PAGE = 1000;

/** One change, as the feed answers it and webhooks deliver it. */
export const CHANGE = z.object({
  cursor: z.string().meta({ description: "Opaque; `after=` it reads what follows." }),
  time: z.string().meta({ format: "date-time" }),
  collection: z.string(),
  item: z.string(),
  operation: z.enum(CHANGE_OPERATIONS as [string, ...string[]]),
  etag: z.string().nullable().meta({
    description: "The item's ETag value after the write; " +
      "null for a delete.",
  }),
  principal: z.string().meta({ description: "`token:NAME`, `user:SUBJECT` or `local`." }),
});

/** `GET /api/changes`: a collection's committed item writes, oldest first. */
export const changeFeed = defineContract({
  method: "GET",
  path: "/api/changes",
  operationId: "changeFeed",
  summary: "Read or follow a collection's changes",
  description: "Every committed write of the collection's items, oldest first, in commit " +
    "order, each with an opaque cursor: `after=` the last one read continues. JSON pages by " +
    "default; `Accept: text/event-stream` streams the same changes as Server-Sent Events " +
    "(each event's `id` its cursor; `Last-Event-ID` resumes), live. `tail=N` starts " +
    "with the newest N changes (a live view that shows the recent past first).",
  tags: ["Change feed"],
  access: "authenticated",
  collectionRight: "read",
  query: z.object({
    collection: COLLECTION,
    after: optionalText(
      "A cursor: the changes after it (from the oldest kept change when absent). For the " +
        "event stream, `Last-Event-ID` counts when `after` is absent.",
    ),
    limit: integerParam(`Most changes per page (1 to ${MAX_CHANGES_PER_PAGE}).`, 100),
    tail: integerParam(
      `Start before the collection's newest N changes (1 to ${MAX_CHANGES_PER_PAGE}) instead of ` +
        "the oldest kept; not with `after`. For the event stream, `Last-Event-ID` wins.",
      undefined,
    ),
  }),
  responses: {
    200: {
      description: "The changes, or the event stream.",
      content: ["application/json", "text/event-stream"],
      schema: z.object({
        collection: z.string(),
        changes: z.array(CHANGE),
        next: z.string().meta({ description: "The cursor to continue from." }),
      }),
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} A cursor this feed never gave, \`limit\` or \`tail\` out of range, ` +
      "or `tail` with `after`, is `invalid-parameter`.",
    404: "No such collection.",
    406: "`Accept` allows neither JSON nor an event stream (`not-acceptable`).",
    410: "The changes after the cursor are no longer kept (`cursor-expired`); `oldest` is the " +
      "cursor to read again from.",
    501: "The store keeps no change feed (`changes-unsupported`; every store shipped keeps one).",
  },
});

export const CHANGE_CONTRACTS = [changeFeed];
