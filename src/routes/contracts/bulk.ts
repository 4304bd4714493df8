/** Contracts of `/api/admin/import` and `/api/admin/export` (bulk in, bulk out). */
import { z } from "zod";
import {
  booleanParam,
  integerParam,
  optionalDateTime,
  optionalIri,
} from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { labelsOf, registeredTypesOf } from "../media_types.ts";
import { importFormats, QUAD_FORMATS, SUBJECT_ONLY_FORMATS } from "../../rdf/format_table.ts";
import { BAD_PARAMETERS, BASE, COLLECTION, COUNT, NO_PARAMETERS } from "./shared.ts";

const TAGS = ["Bulk"];

/** The media types of the quad formats: imported by graph, exported. */
export const BULK_MEDIA_TYPES = registeredTypesOf(QUAD_FORMATS);

/** Every format an import reads (by subject), the quad formats first. */
const IMPORT_FORMATS = importFormats("subject");

/** `N-Quads or TriG`, as the descriptions name the quad formats. */
const QUAD_LABELS = labelsOf(QUAD_FORMATS);

/** An import job as the routes answer it. */
const IMPORT_JOB = z.object({
  id: z.string(),
  collection: z.string(),
  mode: z.enum(["create", "replace", "upsert"]),
  format: z.enum(IMPORT_FORMATS),
  itemsBy: z.enum(["graph", "subject"]),
  graphs: z.enum(["refuse", "ignore"]).optional().meta({
    description: "By subject: what is done with triples in named graphs.",
  }),
  state: z.enum(["queued", "running", "succeeded", "failed"]).meta({
    description: "How the job ran: `succeeded` when it read its body to the end.",
  }),
  outcome: z.enum(["complete", "incomplete", "failed"]).nullable().meta({
    description: "How it ended for the data (null while it runs): `complete` when every item " +
      "was written or unchanged, `incomplete` when some were refused or skipped, `failed` " +
      "when the job failed.",
  }),
  summary: z.string().meta({
    description: "The outcome and the counts in one line, as `deno task import` prints it.",
  }),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  bytesRead: COUNT,
  items: COUNT.meta({ description: "Items and refused parts met: the sum of the four below." }),
  written: COUNT.meta({ description: "Items the store acknowledged (created or replaced)." }),
  unchanged: COUNT.meta({
    description: "`mode=create`: items the collection holds already with the same content.",
  }),
  skipped: COUNT.meta({
    description: "`mode=create`: items the collection holds with other content, left as " +
      "they are (listed as `item-exists`).",
  }),
  refused: COUNT.meta({
    description: "Items or parts not imported (listed with their reason).",
  }),
  existing: COUNT.meta({ description: "`unchanged + skipped`, for older clients." }),
  errors: z.array(z.object({
    item: z.string().nullable(),
    message: z.string(),
    type: z.string().optional(),
    line: COUNT.optional(),
    collection: z.string().optional().meta({
      description: "The collection that holds the item, when that is why it was not " +
        "imported (`skipped`: this collection's item with other content).",
    }),
    count: COUNT.optional().meta({
      description: "Identical refusals (no item, same type and message) are listed once, " +
        "with their number here.",
    }),
  })),
});

const LOCATION = { Location: "`/api/admin/import/jobs/{id}`." };

/** `POST /api/admin/import`: import a collection's items from a quad format or any RDF dump. */
export const importItems = defineContract({
  method: "POST",
  path: "/api/admin/import",
  operationId: "importItems",
  summary: `Import items from ${QUAD_LABELS} (by graph) or any RDF dump (by subject), streamed`,
  description: "`itemsBy=graph` (default): each named graph is one item, named by the graph's " +
    "IRI; triples in the default " +
    "graph are refused (`default-graph-refused`). A graph's triples must be in one block " +
    "(TriG) or on consecutive lines (N-Quads): a later part of the same graph is refused " +
    "(`graph-not-contiguous`). Every item is checked and written as a PUT is; an item that " +
    "fails is refused whole, with its reason and line, and the rest is imported. " +
    `\`itemsBy=subject\`: ${labelsOf(IMPORT_FORMATS)}; ` +
    "each IRI subject with the blank nodes it reaches is one item, named by the subject. The " +
    "whole document is read (spilled to a temporary file, not held in memory) before the first " +
    "item is written, so a syntax error writes nothing, nor does a triple in a named graph " +
    "unless `graphs=ignore` (`named-graphs-not-allowed`, with its line). `mode=create` counts " +
    "an item the collection holds with the same content as `unchanged`, with other content " +
    "as `skipped` (an item of the same IRI in another collection is its own item). An import that " +
    "wrote nothing (and found nothing unchanged) ends `failed`.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "maintain",
  query: z.object({
    collection: COLLECTION,
    mode: z.enum(["create", "replace", "upsert"]).optional().meta({
      description: "`create` (default): an item the collection holds is left as it is: " +
        "`unchanged` when the same, `skipped` (`item-exists`) when not. " +
        "`replace`: every item must exist (`item-not-found` otherwise). " +
        "`upsert`: create or replace.",
    }),
    base: BASE,
    itemsBy: z.enum(["graph", "subject"]).optional().meta({
      description: "`graph` (default): each named graph is one item. `subject`: each IRI " +
        "subject, with the blank nodes it reaches, is one item (for dumps without graphs).",
    }),
    graphs: z.enum(["refuse", "ignore"]).optional().meta({
      description: "With `itemsBy=subject` only: `refuse` (default): a triple in a named " +
        "graph ends the import before anything is written, naming its line. `ignore`: " +
        "graph names are dropped, every triple goes to its subject's item (N-Quads, TriG).",
    }),
    wait: booleanParam(
      "`true`: answer when the import has ended, with 200 and the job; otherwise the answer " +
        "comes once the body has been read, while the last items are written.",
    ),
  }),
  body: {
    description: `The items: ${QUAD_LABELS} (or, by subject, ${
      labelsOf(SUBJECT_ONLY_FORMATS)
    }), UTF-8. Streamed formats are read as they arrive, never held whole.`,
    required: true,
    content: Object.fromEntries(
      registeredTypesOf(IMPORT_FORMATS).map((type) => [type, undefined]),
    ),
  },
  responses: {
    202: {
      description: "The body has been read: the job as it stands then (the last items may " +
        "still be being written; follow `Location`).",
      content: ["application/json"],
      schema: IMPORT_JOB,
      headers: LOCATION,
    },
    200: {
      description: "With `wait=true`: the finished job.",
      content: ["application/json"],
      schema: IMPORT_JOB,
      headers: LOCATION,
    },
  },
  problems: {
    400: BAD_PARAMETERS,
    404: "The collection is not configured (`collection-not-found`).",
    409: "An import of this collection runs already, on this or another instance " +
      "(`import-running`, with `runningJob`).",
    415: `The body is not ${orList(BULK_MEDIA_TYPES)} (nor, with \`itemsBy=subject\`, ${
      labelsOf(SUBJECT_ONLY_FORMATS)
    }) (\`unsupported-media-type\`).`,
  },
});

/** `GET /api/admin/import/jobs`: recent imports. */
export const listImportJobs = defineContract({
  method: "GET",
  path: "/api/admin/import/jobs",
  operationId: "listImportJobs",
  summary: "Recent import jobs, newest first",
  tags: TAGS,
  access: "authenticated",
  query: z.object({ limit: integerParam("Most jobs to list (at most 1000).", 50) }),
  responses: {
    200: { description: "The jobs.", content: ["application/json"], schema: z.array(IMPORT_JOB) },
  },
  problems: { 400: BAD_PARAMETERS },
});

/** `GET /api/admin/import/jobs/{id}`: one import. */
export const getImportJob = defineContract({
  method: "GET",
  path: "/api/admin/import/jobs/{id}",
  operationId: "getImportJob",
  summary: "One import job, with its progress",
  tags: TAGS,
  access: "authenticated",
  query: NO_PARAMETERS,
  pathParams: z.object({ id: z.string().meta({ description: "The job's id." }) }),
  responses: {
    200: { description: "The job.", content: ["application/json"], schema: IMPORT_JOB },
  },
  problems: { 404: "No such job (`job-not-found`)." },
});

/** `GET /api/admin/export`: every item of a collection or workspace, streamed. */
export const exportItems = defineContract({
  method: "GET",
  path: "/api/admin/export",
  operationId: "exportItems",
  summary: `Export items as ${QUAD_LABELS}, streamed`,
  description: "Each item is one named graph, named by its URI. Order: collections as " +
    "configured, items by URI (code point order), triples grouped by subject. Give exactly " +
    "one of `collection` and `workspace`.",
  tags: TAGS,
  access: "authenticated",
  collectionRight: "export",
  query: z.object({
    collection: optionalIri("The collection to export (an absolute IRI)."),
    workspace: optionalIri("The workspace whose collections to export (an absolute IRI)."),
    asOf: optionalDateTime(
      "Export the items as they stood at this instant (RFC 3339, with its zone), from the " +
        "item history: each item's newest version written at or before it; items deleted " +
        "then or not yet written are left out. Needs a store that keeps history.",
    ),
  }),
  responses: {
    200: {
      description: "The items; `Accept` chooses the format (N-Quads by default).",
      content: BULK_MEDIA_TYPES,
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} Also neither or both of \`collection\` and \`workspace\`.`,
    404: "The collection or workspace is not configured.",
    406: `\`Accept\` allows none of ${orList(BULK_MEDIA_TYPES)} (\`not-acceptable\`).`,
    501: "`asOf` on a store that keeps no history (`history-unsupported`).",
  },
});

/** Media types in code spans, `` `a` or `b` ``. */
function orList(types: readonly string[]): string {
  return types.map((type) => `\`${type}\``).join(" or ");
}

/** The bulk contracts. */
export const BULK_CONTRACTS = [importItems, listImportJobs, getImportJob, exportItems];
