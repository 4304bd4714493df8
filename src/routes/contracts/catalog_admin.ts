/**
 * Contracts of the run-time catalog: `/api/admin/collections` and `/api/admin/workspaces`.
 * Bodies take customer.yml's shape of a collection (or workspace) and are validated by the
 * same schema (`src/config/schema.ts`).
 */
import { z } from "zod";
import { defineContract } from "../../http/route_contract.ts";
import { optionalIri } from "../../http/query_schema.ts";
import { BAD_PARAMETERS, COLLECTION, NO_PARAMETERS } from "./shared.ts";

const TAGS = ["Catalog"];

const FIELD = z.object({
  name: z.string(),
  path: z.string().meta({ description: "A SPARQL property path (prefixes from `context`)." }),
  type: z.string().optional(),
  language: z.string().optional(),
  multiple: z.boolean().optional(),
});

const RULE = z.object({
  name: z.string(),
  forType: z.string().optional(),
  construct: z.string(),
  from: z.enum(["body", "store"]).optional(),
});

/** A collection's settings as a body: customer.yml's shape plus `workspace`. */
const COLLECTION_BODY = z.object({
  workspace: z.string().meta({ description: "The workspace's URI (it must exist)." }),
  uri: z.string().meta({ description: "The collection's URI (an absolute IRI)." }),
  name: z.string().optional().meta({ description: "Its name; `label` is read the same way." }),
  label: z.string().optional(),
  index: z.union([z.string(), z.object({ name: z.string(), fields: z.array(FIELD).optional() })])
    .optional().meta({
      description: "The search index's name, or `{name, fields}` with search fields; by " +
        "default a name made from the URI.",
    }),
  itemUriTemplate: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  shapes: z.string().optional().meta({ description: "A SHACL shapes file on the server." }),
  shapesTurtle: z.string().optional().meta({ description: "SHACL shapes as Turtle text." }),
  mappings: z.record(z.string(), z.unknown()).optional(),
  initialize: z.array(RULE).optional(),
  access: z.object({
    readers: z.array(z.string()).optional(),
    editors: z.array(z.string()).optional(),
  }).optional().meta({
    description: "Grants (docs/SECURITY.md): `token:NAME`, `user:SUB`, `group:NAME` or " +
      "`authenticated` per entry. Without them the global roles decide.",
  }),
  webhooks: z.array(z.object({ url: z.string(), secret: z.string() })).optional().meta({
    description: "Endpoints every change is POSTed to, signed (docs/api.md, Webhooks): " +
      "`secret` is `whsec_<base64 key>`; answers show it as `******`, and a `******` put " +
      "back keeps the secret the URL had.",
  }),
});

/** A collection as the list shows it. */
const COLLECTION_ENTRY = COLLECTION_BODY.omit({ label: true }).extend({
  name: z.string(),
  source: z.enum(["config", "api"]).meta({
    description: "`config`: from customer.yml (read only here); `api`: made through this API.",
  }),
  etag: z.string().nullable().meta({ description: "For If-Match (API-made collections)." }),
});

const WORKSPACE_BODY = z.object({
  uri: z.string(),
  name: z.string().optional(),
  label: z.string().optional(),
  initialize: z.array(RULE).optional(),
});

const ETAG = { ETag: "The collection's revision, for If-Match." };
const IF_MATCH_412 = "`If-Match` names another revision (`precondition-failed`).";
const BAD_BODY = "The body is not JSON (`invalid-json`) or not valid settings " +
  "(`invalid-settings`; `errors[].path` is the JSON pointer of each wrong field).";

/** `GET /api/admin/collections`. */
export const listCollections = defineContract({
  method: "GET",
  path: "/api/admin/collections",
  operationId: "listCollections",
  summary: "Every collection with its settings and where it was defined, or one",
  tags: TAGS,
  access: "admin",
  query: z.object({
    collection: optionalIri("Only this collection: the answer is then one object, with ETag."),
  }),
  responses: {
    200: {
      description: "customer.yml's collections, then those made through the API; with " +
        "`collection`, that one.",
      content: ["application/json"],
      schema: z.union([z.array(COLLECTION_ENTRY), COLLECTION_ENTRY]),
      headers: ETAG,
    },
  },
  problems: { 400: BAD_PARAMETERS, 404: "No such collection (`collection-not-found`)." },
});

/** `POST /api/admin/collections`. */
export const createCollection = defineContract({
  method: "POST",
  path: "/api/admin/collections",
  operationId: "createCollection",
  summary: "Make a collection, at once usable on every instance",
  description: "The settings a collection of customer.yml takes, plus `workspace`. The " +
    "collection's search index is created; it is kept in the store, so it survives restarts " +
    "and every instance sharing the store serves it.",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  body: {
    description: "The collection's settings.",
    required: true,
    content: { "application/json": COLLECTION_BODY },
  },
  responses: {
    201: {
      description: "Made; the body is the collection as listed.",
      content: ["application/json"],
      schema: COLLECTION_ENTRY,
      headers: { Location: "`/api/admin/collections?collection={uri}`.", ...ETAG },
    },
  },
  problems: {
    400: BAD_BODY,
    404: "The workspace does not exist (`workspace-not-found`).",
    409: "The URI is taken (`collection-exists`) or the index is another collection's " +
      "(`index-in-use`).",
    415: "The body is not `application/json` (`unsupported-media-type`).",
  },
});

/** `PUT /api/admin/collections?collection=`. */
export const replaceCollection = defineContract({
  method: "PUT",
  path: "/api/admin/collections",
  operationId: "replaceCollection",
  summary: "Replace an API-made collection's settings",
  description: "The URI stays. Changed search fields apply to documents indexed from now " +
    "on; run an indexing job with `clear=true` to rebuild the index with them.",
  tags: TAGS,
  access: "admin",
  query: z.object({ collection: COLLECTION }),
  body: {
    description: "The collection's settings (`workspace` and `index` may be left out: they stay).",
    required: true,
    content: { "application/json": COLLECTION_BODY.partial({ workspace: true, uri: true }) },
  },
  responses: {
    200: {
      description: "Replaced; the collection as listed.",
      content: ["application/json"],
      schema: COLLECTION_ENTRY,
      headers: ETAG,
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} ${BAD_BODY}`,
    404: "No such collection (`collection-not-found`), or no such workspace.",
    409: "The collection is customer.yml's (`collection-from-config`), or the index is " +
      "another collection's (`index-in-use`).",
    412: IF_MATCH_412,
    415: "The body is not `application/json` (`unsupported-media-type`).",
  },
});

/** `DELETE /api/admin/collections?collection=`. */
export const deleteCollection = defineContract({
  method: "DELETE",
  path: "/api/admin/collections",
  operationId: "deleteCollection",
  summary: "Remove an API-made collection that holds no item",
  tags: TAGS,
  access: "admin",
  query: z.object({ collection: COLLECTION }),
  responses: { 204: { description: "Removed." } },
  problems: {
    400: BAD_PARAMETERS,
    404: "No such collection (`collection-not-found`).",
    409: "The collection holds items (`collection-not-empty`) or is customer.yml's " +
      "(`collection-from-config`).",
    412: IF_MATCH_412,
  },
});

/** `POST /api/admin/workspaces`. */
export const createWorkspace = defineContract({
  method: "POST",
  path: "/api/admin/workspaces",
  operationId: "createWorkspace",
  summary: "Make a workspace (collections are then made in it one by one)",
  tags: TAGS,
  access: "admin",
  query: NO_PARAMETERS,
  body: {
    description: "The workspace's settings, as in customer.yml (without `collections`).",
    required: true,
    content: { "application/json": WORKSPACE_BODY },
  },
  responses: {
    201: {
      description: "Made.",
      content: ["application/json"],
      schema: WORKSPACE_BODY.extend({ name: z.string(), source: z.literal("api") }),
      headers: { Location: "`/api/workspaces`." },
    },
  },
  problems: {
    400: BAD_BODY,
    409: "The URI is taken (`workspace-exists`).",
    415: "The body is not `application/json` (`unsupported-media-type`).",
  },
});

/** The catalog's admin contracts. */
export const CATALOG_ADMIN_CONTRACTS = [
  listCollections,
  createCollection,
  replaceCollection,
  deleteCollection,
  createWorkspace,
];
