/**
 * Which RDF formats each route answers in, and with which `Content-Type`: all read from the
 * format table (`RDF_FORMATS`, src/rdf/formats.ts), so the routes, their contracts (and so
 * the OpenAPI document) and content negotiation name the same types.
 */
import { RDF_FORMATS, type RdfFormat } from "../rdf/formats.ts";

/** The formats an item is read in (`GET /api/item`), JSON-LD first (the default). */
export const ITEM_READ_FORMATS: RdfFormat[] = [
  "jsonld",
  "rdfjson",
  "turtle",
  "ntriples",
  "rdfxml",
  "n3",
];

/** The formats a CONSTRUCT or DESCRIBE is answered in, Turtle first (the default). */
export const GRAPH_FORMATS: RdfFormat[] = ["turtle", "ntriples", "rdfxml", "jsonld"];

/** The formats an item downloads as (docs/api.md, Item downloads), by their first extension. */
export const DOWNLOAD_FORMATS: Record<string, RdfFormat> = Object.fromEntries(
  (["turtle", "rdfxml", "ntriples", "n3", "jsonld"] as const).map((
    format,
  ) => [RDF_FORMATS[format].extensions[0].slice(1), format]),
);

/** The Content-Type a response in `format` carries. */
export function mediaTypeOf(format: RdfFormat): string {
  return RDF_FORMATS[format].contentType;
}

/** The registered media types (no parameters) of `formats`, in their order. */
export function registeredTypesOf(formats: readonly RdfFormat[]): string[] {
  return formats.map((format) => RDF_FORMATS[format].mediaType);
}
