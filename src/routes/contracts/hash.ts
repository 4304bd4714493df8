/**
 * Contracts of `/api/item/hash` (docs/api.md, Hash): a GET with a body, the form of the
 * original API contract, or a POST.
 */
import { z } from "zod";
import { defineContract, type HttpMethod } from "../../http/route_contract.ts";
import { bodyMediaTypes } from "../../http/rdf_body.ts";
import type { RdfFormat } from "../../rdf/formats.ts";
import {
  BAD_RDF_BODY,
  BASE,
  BODY_TOO_LARGE,
  bodyContent,
  COLLECTION,
  COUNT,
  UNKNOWN_COLLECTION,
  UNSUPPORTED_BODY,
} from "./shared.ts";

/** The hash's answer. */
const HASH_RESULT = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  algorithm: z.literal("SHA-256"),
  canonicalization: z.literal("RDFC-1.0"),
  quads: COUNT,
});

/** What a hashed body may be in beyond the RDF-in-JSON flavours. */
export const HASH_EXTRA_FORMATS: RdfFormat[] = ["nquads", "ntriples"];

/** The hash query: which collection's settings apply. */
export const HASH_QUERY = z.object({ collection: COLLECTION, base: BASE });

function hashContract(method: HttpMethod, operationId: string, note: string) {
  return defineContract({
    method,
    path: "/api/item/hash",
    operationId,
    summary: "Hash RDF data",
    description: "SHA-256 over the RDFC-1.0 canonical N-Quads: isomorphic graphs get the " +
      `same hash whatever their blank node labels, triple order or JSON flavour. ${note}`,
    tags: ["Hash"],
    access: "authenticated",
    query: HASH_QUERY,
    body: {
      description: "The RDF data to hash.",
      required: true,
      content: bodyContent(bodyMediaTypes("json", HASH_EXTRA_FORMATS)),
    },
    responses: {
      200: { description: "The hash.", content: ["application/json"], schema: HASH_RESULT },
    },
    problems: {
      400: BAD_RDF_BODY,
      404: UNKNOWN_COLLECTION,
      413: BODY_TOO_LARGE,
      415: UNSUPPORTED_BODY,
      422: "Too complex to canonicalise within the configured limit (`canonicalization-limit`).",
      503: "Every worker thread is busy and `service.workers.queue` requests wait already " +
        "(`workers-busy`): retry shortly.",
    },
  });
}

/** `GET /api/item/hash` with the RDF in the body. */
export const hashGet = hashContract(
  "GET",
  "hashItemGet",
  "The original contract's form: a GET whose body is the data (the service reads GET bodies).",
);

/** `POST /api/item/hash`, for clients that cannot send a GET body. */
export const hashPost = hashContract(
  "POST",
  "hashItemPost",
  "The same as the GET, for clients that cannot send a body with a GET.",
);
