/**
 * Pieces the route contracts share: the common parameters, the RDF body media types and
 * the problem descriptions most operations give.
 */
import { z } from "zod";
import { integerParam, optionalIri, requiredIri } from "../../http/query_schema.ts";
import type { BodyContract } from "../../http/route_contract.ts";
import { bodyMediaTypes } from "../../http/rdf_body.ts";
import { ITEM_READ_FORMATS, registeredTypesOf } from "../media_types.ts";

/** `collection`: which configured collection an operation works on. */
export const COLLECTION = requiredIri(
  "The collection, by its URI as configured in customer.yml (an absolute IRI).",
);

/** `item`: the item's URI. */
export const ITEM = requiredIri("The item's URI (an absolute IRI).");

/** `version`: one version of an item from its history (docs/api.md, Item history). */
export const VERSION = integerParam(
  "A version of the item (`version` in its history, from 1): that version's graph, with its " +
    "own ETag and Memento headers. Needs a store that keeps history.",
  undefined,
);

/** The problems of a read that may name a version or an instant (docs/api.md, Item history). */
export const VERSIONED_READ_PROBLEMS = {
  404: "No such collection or item (`collection-not-found`, `item-not-found`), no such " +
    "version (`version-not-found`), or no version yet at `Accept-Datetime`.",
  410: "The item (or the version asked for) is deleted; its history remains (`item-deleted`, " +
    '`Link: <history>; rel="history"`).',
};

/** `base`: the base IRI of an RDF body's relative IRIs (docs/api.md, Conventions). */
export const BASE = optionalIri(
  "The base IRI relative IRIs in the body resolve against (an absolute IRI, as the URL the " +
    "document was fetched from); the document's own @base, xml:base or JSON-LD @base " +
    "applies over it. Without it, a relative IRI is 400 `relative-iri`.",
);

/** A body contract's `content`: each media type, with no schema. */
export function bodyContent(mediaTypes: string[]): BodyContract["content"] {
  return Object.fromEntries(mediaTypes.map((type) => [type, undefined]));
}

/** A body of RDF in JSON only (initialise; docs/api.md, Conventions). */
export function rdfJsonBody(description: string): BodyContract {
  return { description, required: true, content: bodyContent(bodyMediaTypes("json")) };
}

/** A body of RDF in JSON or any text RDF syntax (create and update). */
export function rdfAnyBody(description: string): BodyContract {
  return { description, required: true, content: bodyContent(bodyMediaTypes("any")) };
}

/** Media types an item can be read as, JSON-LD first (the default). */
export const RDF_READ_TYPES = registeredTypesOf(ITEM_READ_FORMATS);

/** The 400 of an operation with query parameters. */
export const BAD_PARAMETERS =
  "A parameter is missing (`missing-parameter`), not an absolute IRI (`invalid-iri`) or " +
  "otherwise malformed (`invalid-parameter`, `invalid-boolean`); `errors[].path` names it.";

/** The 400 of an operation with an RDF body, beyond its parameters. */
export const BAD_RDF_BODY = `${BAD_PARAMETERS} Also an empty body (\`empty-body\`), ` +
  "malformed RDF (`rdf-syntax`, with line and column), a relative IRI and no `base` " +
  "(`relative-iri`), JSON-LD the JSON-LD 1.1 API calls an error or that would lose data " +
  "(`invalid-jsonld`, with the error code) or a remote JSON-LD context that is not " +
  "configured (`remote-context-refused`).";

/** 406 for a graph the asked-for format cannot write (src/routes/rdf_response.ts). */
export const NOT_EXPRESSIBLE = "The graph cannot be written in this format " +
  "(`not-expressible`: RDF/XML cannot carry a C0 control character or a predicate with no " +
  "XML name); the problem names the term and the formats that can carry it.";

/** 422 for a write the collection's shapes refuse. */
export const SHACL_VIOLATION =
  "The collection has `shapes` and the data violates them; `errors` holds the SHACL results.";

/** 404 for a collection that is not configured. */
export const UNKNOWN_COLLECTION = "The collection is not configured (`collection-not-found`).";

/** 413 for a body over the limit. */
export const BODY_TOO_LARGE = "The body exceeds `service.http.maxBodyBytes` (`body-too-large`).";

/** 415 for a body in a media type the operation does not take. */
export const UNSUPPORTED_BODY =
  "The Content-Type is not one this operation accepts (`unsupported-media-type`).";

/** `ETag` as items carry it. */
export const ETAG_HEADER = "The item's content hash as an entity tag.";

/** A count in a response. */
export const COUNT = z.int().min(0);

/** An empty query, for operations without parameters. */
export const NO_PARAMETERS = z.object({});
