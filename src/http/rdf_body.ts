/**
 * Request bodies holding RDF: size-limited reading, format from Content-Type, parsing.
 */
import type { Context } from "hono";
import type { Quad } from "n3";
import type { AppEnv } from "./app_env.ts";
import { ProblemError } from "./problem.ts";
import { readBodyText } from "./body.ts";
import { formatFromMediaType, type RdfFormat } from "../rdf/formats.ts";
import { parseRdf } from "../rdf/parse.ts";

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
}

const JSON_FORMATS: ReadonlySet<string> = new Set(["json", "jsonld", "rdfjson"]);

/** A parsed RDF body and the format it came in. */
export interface RdfBody {
  quads: Quad[];
  format: RdfFormat;
}

/** Reads and parses the request body; 400/413/415 problems for bad input. */
export async function readRdfBody(c: Context<AppEnv>, options: RdfBodyOptions): Promise<RdfBody> {
  const contentType = c.req.header("content-type");
  const format = bodyFormat(contentType, options);
  const text = await readBodyText(c, options.maxBodyBytes);
  if (text.trim() === "") {
    throw new ProblemError(400, "empty-body", "Empty body", "The request body is empty.", [
      { path: "body", message: "empty" },
    ]);
  }
  return await parseRdf(text, format, { contexts: options.contexts, baseIri: options.baseIri });
}

function bodyFormat(contentType: string | undefined, options: RdfBodyOptions): RdfFormat | "json" {
  // A body without a type (or curl's default form type) is sniffed as JSON.
  if (!contentType || /^application\/x-www-form-urlencoded\b/i.test(contentType)) return "json";
  const format = formatFromMediaType(contentType);
  const allowed = format !== undefined &&
    (options.accept === "any" || JSON_FORMATS.has(format) ||
      (format !== "json" && options.extra?.includes(format)));
  if (!allowed) {
    const accepted = options.accept === "any"
      ? "application/ld+json, application/rdf+json, application/json, text/turtle, " +
        "application/n-triples, application/rdf+xml, text/n3"
      : ["application/ld+json", "application/rdf+json", "application/json"]
        .concat(options.extra?.includes("nquads") ? ["application/n-quads"] : []).join(", ");
    throw new ProblemError(
      415,
      "unsupported-media-type",
      "Unsupported media type",
      `Content-Type ${contentType} is not accepted here; use one of: ${accepted}.`,
      [{ path: "Content-Type", message: "unsupported" }],
    );
  }
  return format;
}
