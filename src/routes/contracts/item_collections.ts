/** Contract of `GET /api/item/collections` (docs/api.md, `GET /api/item/collections`). */
import { z } from "zod";
import { iriList } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { MAX_HOLDER_IRIS } from "../../items/item_holders.ts";
import { BAD_PARAMETERS } from "./shared.ts";

/** `GET /api/item/collections`: which readable collections hold an item of each IRI. */
export const getItemCollections = defineContract({
  method: "GET",
  path: "/api/item/collections",
  operationId: "getItemCollections",
  summary: "The collections that hold an item of each IRI",
  description: "For each `item`, the collections the caller may read that hold an item of " +
    "that IRI, in catalog order: none (the IRI is no readable item: link it as an external " +
    "resource), one, or several. Collections the caller may not read are never named. The " +
    "workbench asks once a page, to link each IRI to the item page where the item is.",
  tags: ["Items"],
  access: "authenticated",
  query: z.object({
    item: iriList(`An IRI, repeated; at most ${MAX_HOLDER_IRIS}.`, { min: 1 }),
  }),
  responses: {
    200: {
      description: "Every IRI asked, with the collections holding it (an empty list for none).",
      content: ["application/json"],
      schema: z.object({ collections: z.record(z.string(), z.array(z.string())) }),
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} No \`item\` is \`missing-parameter\`; more than ` +
      `${MAX_HOLDER_IRIS} is \`invalid-parameter\`.`,
    502: "The store failed (`store-error`).",
    503: "The store cannot be reached (`store-unavailable`).",
  },
});
