/**
 * Which RDF formats each route answers in, and with which `Content-Type`: all read from the
 * format table (`RDF_FORMATS`, src/rdf/format_table.ts), so the routes, their contracts (and
 * so the OpenAPI document) and content negotiation name the same types. No list of formats
 * is written here: a format's row says where it is offered.
 */
import {
  downloadExtension,
  formatsWhere,
  offeredFormats,
  RDF_FORMATS,
  type RdfFormat,
} from "../rdf/format_table.ts";

/** The formats an item is read in (`GET /api/item`), the default (JSON-LD) first. */
export const ITEM_READ_FORMATS: RdfFormat[] = offeredFormats("itemRead");

/** What `GET /api/item` answers in when `Accept` does not choose. */
export const ITEM_READ_DEFAULT: RdfFormat = ITEM_READ_FORMATS[0];

/** The formats a CONSTRUCT or DESCRIBE is answered in, the default (Turtle) first. */
export const GRAPH_FORMATS: RdfFormat[] = offeredFormats("graphAnswer");

/** What a CONSTRUCT or DESCRIBE answers in when `Accept` does not choose. */
export const GRAPH_DEFAULT: RdfFormat = GRAPH_FORMATS[0];

/** The formats an item downloads as (docs/api.md, Item downloads), by their first extension. */
export const DOWNLOAD_FORMATS: Record<string, RdfFormat> = Object.fromEntries(
  formatsWhere((info) => info.download).map((format) => [downloadExtension(format), format]),
);

/** The Content-Type a response in `format` carries. */
export function mediaTypeOf(format: RdfFormat): string {
  return RDF_FORMATS[format].contentType;
}

/** The registered media types (no parameters) of `formats`, in their order. */
export function registeredTypesOf(formats: readonly RdfFormat[]): string[] {
  return formats.map((format) => RDF_FORMATS[format].mediaType);
}

/** The formats' labels as a phrase for descriptions: `Turtle, N-Triples or RDF/XML`. */
export function labelsOf(formats: readonly RdfFormat[], conjunction: "or" | "and" = "or"): string {
  const labels = formats.map((format) => RDF_FORMATS[format].label);
  return labels.length < 2
    ? labels.join("")
    : `${labels.slice(0, -1).join(", ")} ${conjunction} ${labels.at(-1)}`;
}
