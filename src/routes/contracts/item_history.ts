/** Contracts of an item's history and restore (docs/api.md, Item history). */
import { z } from "zod";
import { integerParam, requiredInteger } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { ITEM_OPERATIONS } from "../../store/item_history.ts";
import { MAX_VERSIONS_PER_PAGE } from "../../items/item_versions.ts";
import { BAD_PARAMETERS, COLLECTION, ETAG_HEADER, ITEM, SHACL_VIOLATION } from "./shared.ts";

const TAGS = ["Item history"];

/** One version as the JSON history lists it. */
const VERSION_ENTRY = z.object({
  version: z.int().min(1),
  hash: z.string().nullable().meta({ description: "Its ETag's value; null for a delete." }),
  tripleCount: z.int().min(0),
  time: z.string().meta({ format: "date-time" }),
  principal: z.string().meta({ description: "`token:NAME`, `user:SUBJECT` or `local`." }),
  operation: z.enum(ITEM_OPERATIONS as [string, ...string[]]),
});

/** `GET /api/item/history`: an item's versions, newest first. */
export const itemHistory = defineContract({
  method: "GET",
  path: "/api/item/history",
  operationId: "itemHistory",
  summary: "List an item's versions",
  description: "Newest first, paged by version number (`before`). JSON by default; " +
    "`Accept: application/link-format` gives the item's Memento TimeMap (RFC 7089 §5.1.1). " +
    "A deleted item keeps its history.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "read",
  query: z.object({
    collection: COLLECTION,
    item: ITEM,
    limit: integerParam(`Most versions to list (1 to ${MAX_VERSIONS_PER_PAGE}).`, 100),
    before: integerParam(
      "List the versions older than this one (the previous page's `next`).",
      undefined,
    ),
  }),
  responses: {
    200: {
      description: "The versions.",
      content: ["application/json", "application/link-format"],
      schema: z.object({
        collection: z.string(),
        item: z.string(),
        versions: z.array(VERSION_ENTRY),
        next: z.string().nullable().meta({ description: "The next (older) page's URL." }),
      }),
      headers: { Link: 'The next page, `rel="next"`.' },
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} \`limit\` out of range is \`invalid-parameter\`.`,
    404: "No such collection, or an item that neither exists nor ever did.",
    406: "`Accept` allows neither JSON nor link-format (`not-acceptable`).",
  },
});

/** `POST /api/item/restore`: a version's graph written as the item's new version. */
export const restoreItem = defineContract({
  method: "POST",
  path: "/api/item/restore",
  operationId: "restoreItem",
  summary: "Restore a version of an item",
  description: "Writes version `version`'s graph as the item's new version (operation " +
    "`restore`); its ETag is that version's. A deleted item comes back. `If-Match` makes it " +
    "conditional on the current ETag (a deleted item has none: 412); `If-None-Match: *` on " +
    "the item being deleted now (an undelete that never overwrites a write made since: 412).",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "write",
  query: z.object({
    collection: COLLECTION,
    item: ITEM,
    version: requiredInteger("The version to restore (`version` in the item's history)."),
  }),
  responses: { 204: { description: "Restored.", headers: { ETag: ETAG_HEADER } } },
  problems: {
    400: `${BAD_PARAMETERS} Or \`version\` names a delete (\`invalid-parameter\`).`,
    404: "No such collection or item, or no such version (`version-not-found`).",
    412: "`If-Match` does not hold the current ETag, or `If-None-Match: *` and the item " +
      "exists (`precondition-failed`).",
    422: SHACL_VIOLATION,
  },
});

/** `GET /api/item/diff`: what changed between two versions. */
export const itemDiff = defineContract({
  method: "GET",
  path: "/api/item/diff",
  operationId: "itemDiff",
  summary: "What changed between two versions of an item",
  description: "JSON `{added, removed}` (N-Triples statements) by default; `Accept: " +
    "application/rdf-patch` gives an RDF Patch (`D` rows, then `A` rows) that turns version " +
    "`from` into a graph isomorphic to version `to`. Triples with blank nodes are never " +
    "matched: all of `from`'s are removed and all of `to`'s added. A delete version is the " +
    "empty graph.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "read",
  query: z.object({
    collection: COLLECTION,
    item: ITEM,
    from: requiredInteger("The version the change starts from."),
    to: requiredInteger("The version the change leads to."),
  }),
  responses: {
    200: {
      description: "The change.",
      content: ["application/json", "application/rdf-patch"],
      schema: z.object({
        collection: z.string(),
        item: z.string(),
        from: z.int(),
        to: z.int(),
        removed: z.array(z.string()),
        added: z.array(z.string()),
      }),
    },
  },
  problems: {
    400: BAD_PARAMETERS,
    404: "No such collection, or no such version (`version-not-found`, naming `from` or `to`).",
    406: "`Accept` allows neither JSON nor RDF Patch (`not-acceptable`).",
  },
});

/** The history contracts. */
export const ITEM_HISTORY_CONTRACTS = [itemHistory, itemDiff, restoreItem];
