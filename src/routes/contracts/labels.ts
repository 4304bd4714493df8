/** Contract of `GET /api/labels` (docs/api.md, Labels). */
import { z } from "zod";
import { iriList, optionalIri, optionalText } from "../../http/query_schema.ts";
import { defineContract } from "../../http/route_contract.ts";
import { LABEL_PROPERTIES } from "../../rdf/labels.ts";
import { MAX_LABEL_IRIS } from "../../items/labels.ts";
import { BAD_PARAMETERS, UNKNOWN_COLLECTION } from "./shared.ts";

/** `GET /api/labels`: labels of many IRIs and the prefixes the service knows, at once. */
export const getLabels = defineContract({
  method: "GET",
  path: "/api/labels",
  operationId: "getLabels",
  summary: "Labels of resources, and the prefixes the service knows",
  description: "One store query for every IRI: the label in the reader's language (`lang`, " +
    "else `Accept-Language`; then untagged, then English, then any) from the first of " +
    `${LABEL_PROPERTIES.map((p) => `\`${p}\``).join(", ")} that has one, read from every ` +
    "item graph. IRIs without a label are left out. `prefixes` are the well-known ones and the " +
    "collection context's.",
  tags: ["Items"],
  access: "authenticated",
  collectionRight: "read",
  query: z.object({
    iri: iriList(`An IRI to label, repeated; at most ${MAX_LABEL_IRIS}.`),
    collection: optionalIri("A collection whose context's prefixes join the well-known ones."),
    lang: optionalText(
      "The reader's languages, best first, comma-separated (`de,en`); overrides " +
        "`Accept-Language`.",
    ),
  }),
  responses: {
    200: {
      description: "The labels by IRI, and the prefixes by name.",
      content: ["application/json"],
      schema: z.object({
        labels: z.record(
          z.string(),
          z.object({ value: z.string(), language: z.string().optional(), property: z.string() }),
        ),
        prefixes: z.record(z.string(), z.string()),
      }),
    },
  },
  problems: {
    400: `${BAD_PARAMETERS} More than ${MAX_LABEL_IRIS} IRIs is \`invalid-parameter\`.`,
    404: UNKNOWN_COLLECTION,
    502: "The store failed (`store-error`).",
    503: "The store cannot be reached (`store-unavailable`).",
  },
});
