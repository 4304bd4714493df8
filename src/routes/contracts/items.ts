/** Contracts of `/api/item`: create, read, update, delete (docs/api.md, Items). */
import { z } from "zod";
import { optionalIri } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import {
  BAD_PARAMETERS,
  BAD_RDF_BODY,
  BASE,
  BODY_TOO_LARGE,
  COLLECTION,
  ETAG_HEADER,
  ITEM,
  NOT_EXPRESSIBLE,
  RDF_READ_TYPES,
  rdfAnyBody,
  SHACL_VIOLATION,
  UNKNOWN_COLLECTION,
  UNSUPPORTED_BODY,
  VERSION,
  VERSIONED_READ_PROBLEMS,
} from "./shared.ts";

const TAGS = ["Items"];
const COLLECTION_AND_ITEM = z.object({ collection: COLLECTION, item: ITEM });
const WORKERS_BUSY = "Every worker thread is busy and `service.workers.queue` writes wait " +
  "already (`workers-busy`): retry shortly.";

/** `PUT /api/item`: create an item. */
export const createItem = defineContract({
  method: "PUT",
  path: "/api/item",
  operationId: "createItem",
  summary: "Create an item",
  description: "The item's URI is `item` if given, else the body's single root subject; a " +
    "blank-node root gets a URI minted from the collection's `itemUriTemplate`.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "write",
  query: z.object({
    collection: COLLECTION,
    item: optionalIri("The new item's URI; by default the body's single root subject."),
    base: BASE,
  }),
  body: rdfAnyBody("The item's graph."),
  responses: {
    201: {
      description: "Created.",
      content: ["application/json"],
      schema: z.object({ uri: z.string().meta({ format: "iri" }) }),
      headers: { Location: "The new item's URL.", ETag: ETAG_HEADER },
    },
  },
  problems: {
    400: `${BAD_RDF_BODY} Or a body with zero or several roots.`,
    404: UNKNOWN_COLLECTION,
    409: "The item exists already (`item-exists`).",
    413: BODY_TOO_LARGE,
    415: UNSUPPORTED_BODY,
    422: SHACL_VIOLATION,
    503: WORKERS_BUSY,
  },
});

/** `GET /api/item`: read an item. */
export const readItem = defineContract({
  method: "GET",
  path: "/api/item",
  operationId: "readItem",
  summary: "Read an item",
  description: "JSON-LD by default; `Accept` picks another RDF format. `If-None-Match` with " +
    "the current ETag answers 304. `version` reads one version of the item's history; an " +
    "`Accept-Datetime` header the version current then (a Memento TimeGate, RFC 7089).",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "read",
  query: z.object({ collection: COLLECTION, item: ITEM, version: VERSION }),
  responses: {
    200: {
      description: "The item's graph (or that of the version asked for).",
      content: RDF_READ_TYPES,
      headers: {
        ETag: ETAG_HEADER,
        Link: "With history: the item's TimeGate and TimeMap; for a version, its memento link.",
        "Memento-Datetime": "For a version: when it was written.",
        "Content-Location": "For `Accept-Datetime`: the version chosen (`&version=V`).",
        Vary: "`Accept`, and `Accept-Datetime` on a store that keeps history.",
      },
    },
    304: { description: "Not modified: `If-None-Match` holds the current ETag." },
  },
  problems: {
    400: `${BAD_PARAMETERS} Or a malformed \`Accept-Datetime\` (\`invalid-parameter\`).`,
    ...VERSIONED_READ_PROBLEMS,
    406: `No RDF format the \`Accept\` header allows (\`not-acceptable\`). ${NOT_EXPRESSIBLE}`,
  },
});

/** `POST /api/item`: replace an item's graph. */
export const updateItem = defineContract({
  method: "POST",
  path: "/api/item",
  operationId: "updateItem",
  summary: "Replace an item's graph",
  description: "The body must describe `item`. `If-Match` makes the update conditional.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "write",
  query: z.object({ collection: COLLECTION, item: ITEM, base: BASE }),
  body: rdfAnyBody("The item's new graph."),
  responses: { 204: { description: "Updated.", headers: { ETag: ETAG_HEADER } } },
  problems: {
    400: `${BAD_RDF_BODY} Or a body that does not describe \`item\`.`,
    404: "No such collection or item.",
    412: "`If-Match` does not hold the current ETag (`precondition-failed`).",
    413: BODY_TOO_LARGE,
    415: UNSUPPORTED_BODY,
    422: SHACL_VIOLATION,
    503: WORKERS_BUSY,
  },
});

/** `DELETE /api/item`: delete an item. */
export const deleteItem = defineContract({
  method: "DELETE",
  path: "/api/item",
  operationId: "deleteItem",
  summary: "Delete an item",
  description: "`If-Match` makes the delete conditional.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "write",
  query: COLLECTION_AND_ITEM,
  responses: { 204: { description: "Deleted." } },
  problems: {
    400: BAD_PARAMETERS,
    404: "No such collection or item.",
    412: "`If-Match` does not hold the current ETag (`precondition-failed`).",
  },
});

/** The item contracts. */
export const ITEM_CONTRACTS = [createItem, readItem, updateItem, deleteItem];
