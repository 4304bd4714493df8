/** Contract of the catalogue route: the configured workspaces and collections. */
import { z } from "zod";
import { defineContract } from "../../http/route_contract.ts";
import { NO_PARAMETERS } from "./shared.ts";

/** One configured collection with the number of items the store holds in it. */
const COLLECTION = z.object({
  uri: z.string(),
  name: z.string(),
  index: z.string(),
  items: z.number().int(),
  source: z.enum(["config", "api"]).meta({
    description: "`config`: customer.yml; `api`: made through `/api/admin/collections`.",
  }),
  rights: z.array(z.enum(["read", "write", "export", "maintain"])).meta({
    description: "What the caller may do with the collection (docs/SECURITY.md): read, " +
      "write items, export (and see its jobs), maintain (import, index).",
  }),
  access: z.object({ readers: z.array(z.string()), editors: z.array(z.string()) }).nullable()
    .optional().meta({
      description: "The collection's grants (null: none, the global roles decide); shown to " +
        "those who may write it.",
    }),
});

/** `GET /api/workspaces`. */
export const listWorkspaces = defineContract({
  method: "GET",
  path: "/api/workspaces",
  operationId: "listWorkspaces",
  summary: "The configured workspaces and their collections, with item counts",
  description:
    "customer.yml's in its order, then those made through the admin API: the collections the " +
    "caller may read. `items` is what the store holds; how many of them the " +
    "search index holds is a `GET /api/search` with `size=0` away.",
  tags: ["Items"],
  access: "authenticated",
  query: NO_PARAMETERS,
  responses: {
    200: {
      description: "The workspaces.",
      content: ["application/json"],
      schema: z.array(z.object({
        uri: z.string(),
        name: z.string(),
        source: z.enum(["config", "api"]),
        collections: z.array(COLLECTION),
      })),
    },
  },
  problems: {
    502: "The store failed (`store-error`).",
    503: "The store cannot be reached (`store-unavailable`).",
  },
});
