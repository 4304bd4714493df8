/**
 * Request bodies holding RDF: size-limited reading, format from Content-Type, parsing.
 */
import type { Context } from "hono";
import type { Quad } from "n3";
import type { AppEnv } from "./app_env.ts";
import { readBodyText } from "./body.ts";
import { formatFromMediaType, GENERIC_JSON_MEDIA_TYPE } from "../rdf/formats.ts";
import { formatsWhere, RDF_FORMATS, type RdfFormat } from "../rdf/format_table.ts";
import { type ParseOptions, parseRdf, type ParseResult } from "../rdf/parse.ts";
import { DomainError } from "../errors/domain_error.ts";
import { unsupportedMediaType } from "./unsupported_media_type.ts";

/** Parses a body's text (`parseRdf` by default; the RDF work pool in the service). */
export type BodyParser = (
  text: string,
  format: RdfFormat | "json",
  options: ParseOptions,
) => Promise<ParseResult>;

/** What a route accepts: the RDF-in-JSON flavours only, or every RDF format. */
export type BodyFormats = "json" | "any";

/** Limits and local JSON-LD contexts that body parsing needs. */
export interface RdfBodyOptions {
  maxBodyBytes: number;
  contexts: Record<string, unknown>;
  accept: BodyFormats;
  /** Extra formats beyond the JSON flavours (hash also takes N-Quads). */
  extra?: RdfFormat[];
  /** The `base` query parameter: what relative IRIs in the body resolve against. */
  baseIri?: string;
  /** What parses the text; `parseRdf` on this thread unless given. */
  parser?: BodyParser;
}

/** The RDF-in-JSON flavours every RDF body may come in, besides generic JSON. */
export const JSON_BODY_FORMATS: RdfFormat[] = formatsWhere((info) => info.body === "json");

/** The text syntaxes a body of `any` format may also come in. */
const TEXT_BODY_FORMATS: RdfFormat[] = formatsWhere((info) => info.body === "text");

/** The media types a body may have, as the 415 and the route contracts list them. */
export function bodyMediaTypes(accept: BodyFormats, extra: RdfFormat[] = []): string[] {
  const others = accept === "any" ? TEXT_BODY_FORMATS : extra;
  const registered = (formats: RdfFormat[]) => formats.map((f) => RDF_FORMATS[f].mediaType);
  return [...registered(JSON_BODY_FORMATS), GENERIC_JSON_MEDIA_TYPE, ...registered(others)];
}

/** A parsed RDF body and the format it came in. */
export interface RdfBody {
  quads: Quad[];
  format: RdfFormat;
}

/** An RDF body's text, not parsed yet, and the format it is to be read as. */
export interface RdfBodyText {
  text: string;
  format: RdfFormat | "json";
  /**
   * Turns an error of parsing `text` into the one to answer: for a body read as JSON-LD for
   * want of an RDF type, one that says so and lists the accepted types.
   */
  explain: (error: unknown) => unknown;
}

/** Reads the request body's text and its format; 400/413/415 problems for bad input. */
export async function readRdfBodyText(
  c: Context<AppEnv>,
  options: RdfBodyOptions,
): Promise<RdfBodyText> {
  const contentType = c.req.header("content-type");
  const format = bodyFormat(contentType, options);
  const text = await readBodyText(c, options.maxBodyBytes);
  if (text.trim() === "") {
    throw new DomainError("empty-body", {
      detail: "The request body is empty.",
      errors: [
        { path: "body", message: "empty" },
      ],
    });
  }
  const explain = sniffed(contentType)
    ? (error: unknown) =>
      error instanceof DomainError
        ? readAsJsonLd(error, contentType, bodyMediaTypes(options.accept, options.extra))
        : error
    : (error: unknown) => error;
  return { text, format, explain };
}

/** Reads and parses the request body; 400/413/415 problems for bad input. */
export async function readRdfBody(c: Context<AppEnv>, options: RdfBodyOptions): Promise<RdfBody> {
  const { text, format, explain } = await readRdfBodyText(c, options);
  const parse = options.parser ?? parseRdf;
  try {
    return await parse(text, format, { contexts: options.contexts, baseIri: options.baseIri });
  } catch (error) {
    throw explain(error);
  }
}

/** A body without an RDF type (none, or curl's default form type) is sniffed as JSON. */
function sniffed(contentType: string | undefined): boolean {
  return !contentType || /^application\/x-www-form-urlencoded\b/i.test(contentType);
}

/**
 * The parse error of a sniffed body, saying why it was read as JSON-LD and what to send:
 * without it, "could not be parsed at line 1" puzzles whoever sent Turtle with `curl -d`.
 */
function readAsJsonLd(
  error: DomainError,
  contentType: string | undefined,
  accepted: string[],
): DomainError {
  const given = contentType
    ? `Content-Type ${contentType.split(";")[0]} (curl's default for -d) is no RDF type`
    : "The request has no Content-Type";
  return new DomainError(error.slug, {
    detail: `${given}, so the body was read as JSON-LD (or RDF/JSON): ${error.message} If the ` +
      `body is in another syntax, send its type; accepted: ${accepted.join(", ")}.`,
    errors: error.errors,
    extensions: { ...error.extensions, readAs: "application/ld+json" },
  });
}

function bodyFormat(contentType: string | undefined, options: RdfBodyOptions): RdfFormat | "json" {
  if (sniffed(contentType) || contentType === undefined) return "json";
  const format = formatFromMediaType(contentType);
  const allowed = format !== undefined &&
    (options.accept === "any" || format === "json" || JSON_BODY_FORMATS.includes(format) ||
      options.extra?.includes(format));
  if (!allowed) {
    throw unsupportedMediaType({
      given: contentType,
      accepted: bodyMediaTypes(options.accept, options.extra),
    });
  }
  return format;
}
