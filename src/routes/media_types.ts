/**
 * The media type each RDF format is answered with, and the download extensions (API.md,
 * Item downloads). Shared by the routes and their contracts, so the OpenAPI document names
 * exactly the types the responses carry.
 */
import type { RdfFormat } from "../rdf/formats.ts";

/** Download extensions and the format each serves. */
export const DOWNLOAD_FORMATS: Record<string, RdfFormat> = {
  ttl: "turtle",
  rdf: "rdfxml",
  nt: "ntriples",
  n3: "n3",
  jsonld: "jsonld",
};

const MEDIA_TYPES: Record<RdfFormat, string> = {
  turtle: "text/turtle; charset=utf-8",
  rdfxml: "application/rdf+xml; charset=utf-8",
  ntriples: "application/n-triples; charset=utf-8",
  n3: "text/n3; charset=utf-8",
  jsonld: "application/ld+json",
  rdfjson: "application/rdf+json",
  nquads: "application/n-quads; charset=utf-8",
  trig: "application/trig; charset=utf-8",
};

/** The Content-Type a response in `format` carries. */
export function mediaTypeOf(format: RdfFormat): string {
  return MEDIA_TYPES[format];
}
