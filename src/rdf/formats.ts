/**
 * Finding an RDF format from what a request says (its media type, a file name) and
 * `Accept` negotiation, over the table of formats (format_table.ts).
 */
import { FORMAT_NAMES, RDF_FORMATS, type RdfFormat } from "./format_table.ts";

// The table's names, for the many callers that know formats by this module.
export { RDF_FORMATS, type RdfFormat, type RdfFormatInfo } from "./format_table.ts";

/** Generic JSON: the body is JSON-LD or RDF/JSON, decided by its shape. */
const JSON_MEDIA_TYPES = ["application/json", "text/json"];

/** The media type of generic JSON that the service names in lists of accepted types. */
export const GENERIC_JSON_MEDIA_TYPE = JSON_MEDIA_TYPES[0];

/** The file extension of generic JSON: a `.json` file is JSON-LD or RDF/JSON, by its shape. */
export const GENERIC_JSON_EXTENSION = ".json";

/** The bare, lower-cased media type of a `Content-Type` value (parameters dropped). */
function bareMediaType(contentType: string): string {
  return contentType.split(";", 1)[0].trim().toLowerCase();
}

/**
 * The format named by a request's `Content-Type` (parameters ignored, case-insensitive):
 * `"json"` for generic JSON, whose flavour is detected from the body; undefined when the
 * media type is not an RDF format.
 */
export function formatFromMediaType(contentType: string): RdfFormat | "json" | undefined {
  const type = bareMediaType(contentType);
  if (JSON_MEDIA_TYPES.includes(type)) return "json";
  return FORMAT_NAMES.find((name) => {
    const info = RDF_FORMATS[name];
    return info.mediaType === type || info.aliases.includes(type) ||
      info.bodyOnlyAliases.includes(type);
  });
}

/**
 * The format named by a file name's extension (case-insensitive): `"json"` for `.json`,
 * undefined when the extension is not an RDF one.
 */
export function formatFromFileName(name: string): RdfFormat | "json" | undefined {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return undefined;
  const extension = name.slice(dot).toLowerCase();
  if (extension === GENERIC_JSON_EXTENSION) return "json";
  return FORMAT_NAMES.find((format) => RDF_FORMATS[format].extensions.includes(extension));
}

/** One media range of an `Accept` header. */
export interface MediaRange {
  type: string;
  subtype: string;
  quality: number;
  /** Position in the header: the client's order breaks ties. */
  position: number;
}

/** The well-formed media ranges of an `Accept` header; malformed ones are skipped. */
export function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  accept.split(",").forEach((part, position) => {
    const [range, ...parameters] = part.split(";");
    const [type, subtype, extra] = range.trim().toLowerCase().split("/");
    if (!type || !subtype || extra !== undefined) return;
    let quality = 1;
    for (const parameter of parameters) {
      const [key, value] = parameter.split("=").map((s) => s.trim());
      if (key.toLowerCase() !== "q") continue;
      const parsed = Number(value);
      // A malformed weight is ignored rather than turned into a refusal.
      if (value !== "" && Number.isFinite(parsed)) quality = Math.min(1, Math.max(0, parsed));
    }
    ranges.push({ type, subtype, quality, position });
  });
  return ranges;
}

/** Media types the format answers `Accept` with, the registered one first. */
function acceptableTypes(format: RdfFormat): string[] {
  const info = RDF_FORMATS[format];
  return [info.mediaType, ...info.aliases, ...(info.answersGenericJson ? JSON_MEDIA_TYPES : [])];
}

/** How well one format matches the header: quality, then specificity, then position. */
interface Match {
  quality: number;
  specificity: number;
  position: number;
}

/** The best match of media types (the registered one first) among an `Accept` header's ranges. */
function matchMediaTypes(mediaTypes: readonly string[], ranges: MediaRange[]): Match | undefined {
  let best: Match | undefined;
  for (const [index, mediaType] of mediaTypes.entries()) {
    const [type, subtype] = mediaType.split("/");
    // Wildcards match the registered type only: `application/*` must not pick Turtle
    // through `application/x-turtle`, nor `text/*` JSON-LD through `text/json`.
    const registered = index === 0;
    for (const range of ranges) {
      const specificity = range.type === type && range.subtype === subtype
        ? 3
        : registered && range.type === type && range.subtype === "*"
        ? 2
        : registered && range.type === "*" && range.subtype === "*"
        ? 1
        : 0;
      if (specificity === 0) continue;
      // RFC 9110: the most specific range that matches decides the weight.
      if (
        !best || specificity > best.specificity ||
        (specificity === best.specificity && range.quality > best.quality)
      ) {
        best = { quality: range.quality, specificity, position: range.position };
      }
    }
  }
  return best;
}

/**
 * Picks a format from an `Accept` header among `candidates`, each with the media types that
 * ask for it (the registered one first; wildcards match only that one): the one negotiation
 * of the service, for RDF formats and SPARQL results formats alike.
 *
 * No header, an empty one, or one without a single well-formed media range gives
 * `fallback`. Otherwise the highest weight wins; ties go to the more specific range
 * (`text/turtle` over `text/*` over `*\/*`), then to the range the client listed first,
 * then to `fallback`, then to the order of `candidates`. Undefined means nothing offered is
 * acceptable: the caller answers 406.
 */
export function negotiateMediaType<F extends string>(
  accept: string | undefined,
  candidates: readonly (readonly [format: F, mediaTypes: readonly string[]])[],
  fallback: F,
): F | undefined {
  const ranges = accept === undefined ? [] : parseAccept(accept);
  if (ranges.length === 0) return fallback;
  let chosen: { format: F; match: Match } | undefined;
  for (const [format, mediaTypes] of candidates) {
    const match = matchMediaTypes(mediaTypes, ranges);
    if (!match || match.quality <= 0) continue;
    if (!chosen || isBetter(match, format, chosen.match, chosen.format, fallback)) {
      chosen = { format, match };
    }
  }
  return chosen?.format;
}

/** Picks the response format from an `Accept` header among `allowed` RDF formats. */
export function negotiateFormat(
  accept: string | undefined,
  allowed: RdfFormat[],
  fallback: RdfFormat,
): RdfFormat | undefined {
  return negotiateMediaType(
    accept,
    allowed.map((format) => [format, acceptableTypes(format)] as const),
    fallback,
  );
}

function isBetter<F extends string>(
  candidate: Match,
  candidateFormat: F,
  current: Match,
  currentFormat: F,
  fallback: F,
): boolean {
  if (candidate.quality !== current.quality) return candidate.quality > current.quality;
  if (candidate.specificity !== current.specificity) {
    return candidate.specificity > current.specificity;
  }
  if (candidate.position !== current.position) return candidate.position < current.position;
  return candidateFormat === fallback && currentFormat !== fallback;
}
