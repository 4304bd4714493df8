/**
 * The RDF formats the service reads and writes: media types, file extensions and
 * `Accept` negotiation.
 */

/** An RDF serialisation the service can parse and write. */
export type RdfFormat =
  | "jsonld"
  | "rdfjson"
  | "turtle"
  | "ntriples"
  | "nquads"
  | "rdfxml"
  | "n3"
  | "trig";

/** What the service knows about one format. */
export interface RdfFormatInfo {
  /** Human name for messages, e.g. `Turtle`. */
  label: string;
  /** The registered media type, without parameters. */
  mediaType: string;
  /** The `Content-Type` of responses and downloads in this format. */
  contentType: string;
  /** File extensions (with the dot) that name this format. */
  extensions: string[];
  /** Other media types that mean this format, in requests and in `Accept`. */
  aliases: string[];
  /** Media types accepted for request bodies only: too generic to answer `Accept` with. */
  bodyOnlyAliases: string[];
}

/** Every format, keyed by its short name. */
export const RDF_FORMATS: Readonly<Record<RdfFormat, Readonly<RdfFormatInfo>>> = {
  jsonld: {
    label: "JSON-LD",
    mediaType: "application/ld+json",
    contentType: "application/ld+json",
    extensions: [".jsonld"],
    // JSON-LD is JSON, so a client that asks for JSON gets it; a JSON body is detected.
    aliases: [],
    bodyOnlyAliases: [],
  },
  rdfjson: {
    label: "RDF/JSON",
    mediaType: "application/rdf+json",
    contentType: "application/rdf+json",
    extensions: [".rj"],
    aliases: [],
    bodyOnlyAliases: [],
  },
  turtle: {
    label: "Turtle",
    mediaType: "text/turtle",
    contentType: "text/turtle; charset=utf-8",
    extensions: [".ttl"],
    aliases: ["application/x-turtle", "application/turtle"],
    bodyOnlyAliases: [],
  },
  ntriples: {
    label: "N-Triples",
    mediaType: "application/n-triples",
    contentType: "application/n-triples; charset=utf-8",
    extensions: [".nt"],
    aliases: [],
    bodyOnlyAliases: [],
  },
  nquads: {
    label: "N-Quads",
    mediaType: "application/n-quads",
    contentType: "application/n-quads; charset=utf-8",
    extensions: [".nq"],
    aliases: ["text/x-nquads"],
    bodyOnlyAliases: [],
  },
  rdfxml: {
    label: "RDF/XML",
    mediaType: "application/rdf+xml",
    contentType: "application/rdf+xml; charset=utf-8",
    extensions: [".rdf", ".owl", ".xml"],
    aliases: [],
    // Uploads of .rdf/.owl files often arrive as generic XML; answering a browser's
    // `application/xml;q=0.9` with RDF/XML would be a surprise, so these are body-only.
    bodyOnlyAliases: ["application/xml", "text/xml", "application/owl+xml"],
  },
  n3: {
    label: "N3",
    mediaType: "text/n3",
    contentType: "text/n3; charset=utf-8",
    extensions: [".n3"],
    aliases: ["text/rdf+n3"],
    bodyOnlyAliases: [],
  },
  trig: {
    label: "TriG",
    mediaType: "application/trig",
    contentType: "application/trig; charset=utf-8",
    extensions: [".trig"],
    aliases: ["application/x-trig"],
    bodyOnlyAliases: [],
  },
};

/** Generic JSON: the body is JSON-LD or RDF/JSON, decided by its shape. */
const JSON_MEDIA_TYPES = ["application/json", "text/json"];

/** The media type of generic JSON that the service names in lists of accepted types. */
export const GENERIC_JSON_MEDIA_TYPE = JSON_MEDIA_TYPES[0];

const FORMAT_NAMES = Object.keys(RDF_FORMATS) as RdfFormat[];

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
  if (extension === ".json") return "json";
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
  return format === "jsonld"
    ? [info.mediaType, ...info.aliases, ...JSON_MEDIA_TYPES]
    : [info.mediaType, ...info.aliases];
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
