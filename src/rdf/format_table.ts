/**
 * The table of RDF formats: every fact the service keeps about one format, in its row. The
 * routes' format lists (src/routes/media_types.ts, and through it the route contracts and
 * so the OpenAPI document), content negotiation and request bodies (formats.ts,
 * src/http/rdf_body.ts), the workbench's download buttons (src/ui/pages.ts) and docs/api.md
 * (tests/unit/api_docs_test.ts) all read it. A new format is a row here, a writer in
 * src/rdf/serialize.ts and, if it is read too, a parser in src/rdf/parse.ts.
 *
 * The rows' order is the order of preference: lists of formats follow it (after a list's
 * default), and where an `Accept` header leaves a tie (`application/*`) the earlier wins.
 */

/** An RDF serialisation the service can parse and write. */
export type RdfFormat =
  | "turtle"
  | "ntriples"
  | "rdfxml"
  | "n3"
  | "jsonld"
  | "rdfjson"
  | "nquads"
  | "trig";

/** Whether a response offers a format: not at all, as one choice, or when `Accept` picks none. */
export type Offer = false | true | "default";

/** What the service knows about one format. */
export interface RdfFormatInfo {
  /** Human name for messages and buttons, e.g. `Turtle`. */
  label: string;
  /** The registered media type, without parameters. */
  mediaType: string;
  /** The `Content-Type` of responses and downloads in this format. */
  contentType: string;
  /** File extensions (with the dot) that name this format; the first names its download. */
  extensions: string[];
  /** Other media types that mean this format, in requests and in `Accept`. */
  aliases: string[];
  /** Media types accepted for request bodies only: too generic to answer `Accept` with. */
  bodyOnlyAliases: string[];
  /** Also answers an `Accept` of generic JSON (`application/json`, `text/json`). */
  answersGenericJson: boolean;
  /**
   * The request bodies it may be: `json`, every route that reads RDF (item writes,
   * initialise, hash); `text`, the routes that take any syntax (item writes); unset, none.
   */
  body?: "json" | "text";
  /** `GET /api/item` answers in it. */
  itemRead: Offer;
  /**
   * A SPARQL CONSTRUCT or DESCRIBE on `/sparql` is answered in it (the query tool offers two
   * of these: `QUERY_TOOL_GRAPH_FORMATS`, src/routes/contracts/tools.ts).
   */
  graphAnswer: Offer;
  /** Downloaded as `/api/item.<first extension>`. */
  download: boolean;
  /**
   * `POST /api/admin/import`: `graph`, a quad format: items by named graph (and by subject),
   * and a collection's export (`/api/admin/export`, one named graph per item); `subject`,
   * items by subject only (the syntax has no named graphs); unset, not imported.
   */
  importBy?: "graph" | "subject";
  /**
   * An import parses it as it streams in (src/bulk/streamed_quads.ts: N3.js, which must read
   * it); otherwise it is read whole, up to a bound.
   */
  streamedImport: boolean;
}

/**
 * The rows as written: `satisfies` keeps their literal values (`importBy: "graph"`), so the
 * types of the import's formats below are read from the rows too.
 */
const ROWS = {
  turtle: {
    label: "Turtle",
    mediaType: "text/turtle",
    contentType: "text/turtle; charset=utf-8",
    extensions: [".ttl"],
    aliases: ["application/x-turtle", "application/turtle"],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    body: "text",
    itemRead: true,
    graphAnswer: "default",
    download: true,
    importBy: "subject",
    streamedImport: true,
  },
  ntriples: {
    label: "N-Triples",
    mediaType: "application/n-triples",
    contentType: "application/n-triples; charset=utf-8",
    extensions: [".nt"],
    aliases: [],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    body: "text",
    itemRead: true,
    graphAnswer: true,
    download: true,
    importBy: "subject",
    streamedImport: true,
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
    answersGenericJson: false,
    body: "text",
    itemRead: true,
    graphAnswer: true,
    download: true,
    importBy: "subject",
    // No streaming RDF/XML parser here.
    streamedImport: false,
  },
  n3: {
    label: "N3",
    mediaType: "text/n3",
    contentType: "text/n3; charset=utf-8",
    extensions: [".n3"],
    aliases: ["text/rdf+n3"],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    body: "text",
    itemRead: true,
    graphAnswer: false,
    download: true,
    streamedImport: false,
  },
  jsonld: {
    label: "JSON-LD",
    mediaType: "application/ld+json",
    contentType: "application/ld+json",
    extensions: [".jsonld"],
    aliases: [],
    bodyOnlyAliases: [],
    // JSON-LD is JSON, so a client that asks for JSON gets it; a JSON body is detected.
    answersGenericJson: true,
    body: "json",
    itemRead: "default",
    graphAnswer: true,
    download: true,
    importBy: "subject",
    // A JSON-LD document is one JSON value: it is parsed whole.
    streamedImport: false,
  },
  rdfjson: {
    label: "RDF/JSON",
    mediaType: "application/rdf+json",
    contentType: "application/rdf+json",
    extensions: [".rj"],
    aliases: [],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    body: "json",
    itemRead: true,
    graphAnswer: false,
    download: false,
    streamedImport: false,
  },
  nquads: {
    label: "N-Quads",
    mediaType: "application/n-quads",
    contentType: "application/n-quads; charset=utf-8",
    extensions: [".nq"],
    aliases: ["text/x-nquads"],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    itemRead: false,
    graphAnswer: false,
    download: false,
    importBy: "graph",
    streamedImport: true,
  },
  trig: {
    label: "TriG",
    mediaType: "application/trig",
    contentType: "application/trig; charset=utf-8",
    extensions: [".trig"],
    aliases: ["application/x-trig"],
    bodyOnlyAliases: [],
    answersGenericJson: false,
    itemRead: false,
    graphAnswer: false,
    download: false,
    importBy: "graph",
    streamedImport: true,
  },
} satisfies Record<RdfFormat, RdfFormatInfo>;

/** Every format, keyed by its short name, in the order of preference. */
export const RDF_FORMATS: Readonly<Record<RdfFormat, Readonly<RdfFormatInfo>>> = ROWS;

/** Every format's name, in the table's order. */
export const FORMAT_NAMES = Object.keys(RDF_FORMATS) as RdfFormat[];

/** The formats whose row passes `test`, in the table's order. */
export function formatsWhere(test: (info: Readonly<RdfFormatInfo>) => boolean): RdfFormat[] {
  return FORMAT_NAMES.filter((format) => test(RDF_FORMATS[format]));
}

/** The formats a response offers (`itemRead`, `graphAnswer`), its default first. */
export function offeredFormats(offer: "itemRead" | "graphAnswer"): RdfFormat[] {
  const offered = formatsWhere((info) => info[offer] !== false);
  const defaults = offered.filter((format) => RDF_FORMATS[format][offer] === "default");
  if (defaults.length !== 1) throw new Error(`${offer}: ${defaults.length} defaults in the table`);
  return [...defaults, ...offered.filter((format) => format !== defaults[0])];
}

/** The name of a format's download, `/api/item.<extension>`: its first extension, no dot. */
export function downloadExtension(format: RdfFormat): string {
  return RDF_FORMATS[format].extensions[0].slice(1);
}

/** The formats whose row has the values in `Row`, as a type: `FormatsWith<{ download: true }>`. */
type FormatsWith<Row> = { [F in RdfFormat]: typeof ROWS[F] extends Row ? F : never }[RdfFormat];

/** A format `POST /api/admin/import` reads: a row with `importBy`. */
export type ImportFormat = FormatsWith<{ importBy: "graph" | "subject" }>;

/** A quad format: imported by graph (or by subject), and what a collection is exported as. */
export type QuadFormat = FormatsWith<{ importBy: "graph" }>;

/** A format an import parses as it streams in. */
export type StreamedImportFormat = FormatsWith<{ streamedImport: true }>;

/** The quad formats in the table's order: an export's default (N-Quads) first. */
export const QUAD_FORMATS = formatsWhere((info) => info.importBy === "graph") as QuadFormat[];

/** The formats without named graphs, which an import reads by subject only. */
export const SUBJECT_ONLY_FORMATS = formatsWhere((info) =>
  info.importBy === "subject"
) as ImportFormat[];

/**
 * The formats an import reads, by named graph (the quad formats) or by subject (those, then
 * the formats without named graphs).
 */
export function importFormats(itemsBy: "graph" | "subject"): ImportFormat[] {
  return itemsBy === "graph" ? QUAD_FORMATS : [...QUAD_FORMATS, ...SUBJECT_ONLY_FORMATS];
}

/**
 * What generic JSON (`application/json`, `.json`) means where its flavour is not told by its
 * shape, as an import's: the format that answers generic JSON (JSON-LD).
 */
export const GENERIC_JSON_FORMAT: RdfFormat = formatsWhere((info) => info.answersGenericJson)[0];

/** Whether an import reads `format` (by subject at least). */
export function isImportFormat(format: string | undefined): format is ImportFormat {
  return importFormats("subject").includes(format as ImportFormat);
}

/**
 * The format an import reads for what a media type or a file name named (generic JSON as
 * {@link GENERIC_JSON_FORMAT}); undefined when an import reads none.
 */
export function importFormatOf(named: RdfFormat | "json" | undefined): ImportFormat | undefined {
  const format = named === "json" ? GENERIC_JSON_FORMAT : named;
  return isImportFormat(format) ? format : undefined;
}

/** Whether `format` is a quad format (imported by graph, exported). */
export function isQuadFormat(format: string | undefined): format is QuadFormat {
  return QUAD_FORMATS.includes(format as QuadFormat);
}

/** Whether an import parses `format` as it streams in. */
export function isStreamedImport(format: RdfFormat): format is StreamedImportFormat {
  return RDF_FORMATS[format].streamedImport;
}
