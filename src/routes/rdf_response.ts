/**
 * An item's triples as an HTTP response: small items are serialised whole and sent with a
 * Content-Length (cheaper than a chunked stream through node:http), large ones stream. The
 * syntaxes with prefixes (Turtle, N3, RDF/XML) use the ones the caller knows for the
 * collection, never invented `ns0:` names for a namespace it has a name for.
 *
 * A graph the format cannot express (RDF/XML: a literal with a C0 control character, a
 * predicate with no XML name) answers 406 before the first byte is sent: a small item is
 * serialised in full first anyway; a large one is read once to check it against the
 * format's limits and again to stream it, so it is never held in memory.
 */
import type { Quad } from "n3";
import { RDF_FORMATS, type RdfFormat } from "../rdf/formats.ts";
import { serializeRdf } from "../rdf/serialize.ts";
import { InexpressibleError } from "../rdf/writers/inexpressible.ts";
import { checkRdfXmlQuad } from "../rdf/writers/rdfxml.ts";
import { prefixesUsedBy, writablePrefixes } from "../rdf/writers/prefix_choice.ts";
import type { ItemRead, ItemRecord } from "../store/triple_store.ts";
import { prefixesOf } from "../fields/field_paths.ts";
import type { AppDeps } from "./app_deps.ts";
import { DOWNLOAD_FORMATS, mediaTypeOf } from "./media_types.ts";
import { DomainError } from "../errors/domain_error.ts";

/** The prefixes the service knows for a collection: the well-known ones and its context's. */
export function collectionPrefixes(deps: AppDeps, collection: string): Record<string, string> {
  return prefixesOf(deps.catalog.collection(collection).collection.context);
}

/** Items up to this many triples are answered in one piece. */
const BUFFERED_TRIPLES = 2_000;

/** The formats with limits, and the check that finds a quad beyond them. */
const FORMAT_LIMITS: Partial<Record<RdfFormat, (quad: Quad) => void>> = {
  rdfxml: checkRdfXmlQuad,
};

/** Times a large item is read again when it changed between the check and the stream. */
const CHECK_ATTEMPTS = 3;

/**
 * The response for an item in `format`. `read` reads the item (its record and triples);
 * `headers` gives the response headers for the record of the version that is sent.
 */
export async function itemRdfResponse(
  read: () => Promise<ItemRead>,
  format: RdfFormat,
  headers: (record: ItemRecord) => Record<string, string>,
  prefixes: Readonly<Record<string, string>> = {},
): Promise<Response> {
  let item = await read();
  if (item.record.tripleCount <= BUFFERED_TRIPLES) {
    // Whole in memory anyway: only the prefixes the graph uses are declared.
    const quads = await Array.fromAsync(item.quads);
    const used = prefixesUsedBy(quads, prefixes);
    const body = await refusingInexpressible(
      format,
      () => new Response(serializeRdf(quads, format, { prefixes: used })).arrayBuffer(),
    );
    return new Response(body, { status: 200, headers: headers(item.record) });
  }
  const check = FORMAT_LIMITS[format];
  if (check) item = await checkedRead(item, read, check, format);
  // Streamed: which namespaces it uses is known only at the end, so every one is declared.
  const streamed = { prefixes: writablePrefixes(prefixes) };
  return new Response(serializeRdf(item.quads, format, streamed), {
    status: 200,
    headers: headers(item.record),
  });
}

/**
 * Checks every quad of `item`, then reads it again to be streamed. If another version was
 * written in between, that one is checked in turn (a few times at most: after that the
 * stream itself fails at an inexpressible quad, as it would without the check).
 */
async function checkedRead(
  item: ItemRead,
  read: () => Promise<ItemRead>,
  check: (quad: Quad) => void,
  format: RdfFormat,
): Promise<ItemRead> {
  for (let attempt = 1;; attempt++) {
    await refusingInexpressible(format, async () => {
      for await (const quad of item.quads) check(quad);
    });
    const again = await read();
    if (again.record.hash === item.record.hash || attempt >= CHECK_ATTEMPTS) return again;
    item = again;
  }
}

async function refusingInexpressible<T>(format: RdfFormat, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InexpressibleError) throw inexpressibleProblem(error, format);
    throw error;
  }
}

/** 406 naming the term, why, and the formats that can carry the graph. */
function inexpressibleProblem(error: InexpressibleError, format: RdfFormat): DomainError {
  const others = Object.entries(DOWNLOAD_FORMATS)
    .filter(([, other]) => other !== format && !FORMAT_LIMITS[other]);
  const mediaType = (other: RdfFormat) => mediaTypeOf(other).split(";")[0];
  const named = others.map(([extension, other]) =>
    `${RDF_FORMATS[other].label} (${mediaType(other)}, .${extension})`
  );
  return new DomainError("not-expressible", {
    detail: `This item cannot be written as ${error.format}: ${error.message}. Ask for a format ` +
      `that can carry it: ${named.join(", ")}.`,
    errors: [{ path: "Accept", message: `${error.term}: ${error.reason}` }],
    extensions: { term: error.term, alternatives: others.map(([, other]) => mediaType(other)) },
  });
}
