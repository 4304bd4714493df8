/** Contract of `POST /api/item/initialize` (docs/api.md, Initialise with extra data). */
import { z } from "zod";
import { iriList } from "../../http/query_schema.ts";
import { JSON_BODY_FORMATS } from "../../http/rdf_body.ts";
import { mediaTypeOf } from "../media_types.ts";
import { defineContract } from "../../http/route_contract.ts";
import {
  BAD_RDF_BODY,
  BASE,
  BODY_TOO_LARGE,
  COLLECTION,
  rdfJsonBody,
  UNKNOWN_COLLECTION,
  UNSUPPORTED_BODY,
} from "./shared.ts";

/** `POST /api/item/initialize`: the body plus the collection's default data. */
export const initializeItem = defineContract({
  method: "POST",
  path: "/api/item/initialize",
  operationId: "initializeItem",
  summary: "Add a collection's default data to RDF",
  description: "Runs the collection's `initialize` rules (workspace rules first) with `?this` " +
    "bound to each listed URI; results are added, nothing is removed.",
  tags: ["Initialise"],
  access: "authenticated",
  collectionRight: "write",
  query: z.object({
    collection: COLLECTION,
    uri: iriList("The resources to initialise, repeated: `uri=A&uri=B`.", { min: 1 }),
    base: BASE,
  }),
  body: rdfJsonBody("The RDF to initialise."),
  responses: {
    200: {
      description: "The body with the defaults added, in the flavour the request used.",
      content: JSON_BODY_FORMATS.map(mediaTypeOf),
    },
  },
  problems: {
    400: `${BAD_RDF_BODY} Or a listed \`uri\` that is not in the body (\`uri-not-in-body\`).`,
    404: UNKNOWN_COLLECTION,
    413: BODY_TOO_LARGE,
    415: UNSUPPORTED_BODY,
  },
});
