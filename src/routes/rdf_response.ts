/**
 * An item's triples as an HTTP response: small items are serialised whole and sent with a
 * Content-Length (cheaper than a chunked stream through node:http), large ones stream.
 */
import type { Quad } from "n3";
import type { RdfFormat } from "../rdf/formats.ts";
import { serializeRdf } from "../rdf/serialize.ts";

/** Items up to this many triples are answered in one piece. */
const BUFFERED_TRIPLES = 2_000;

/** The response for `quads` in `format`; `tripleCount` decides buffered or streamed. */
export async function rdfResponse(
  quads: AsyncIterable<Quad>,
  format: RdfFormat,
  tripleCount: number,
  headers: Record<string, string>,
): Promise<Response> {
  const stream = serializeRdf(quads, format);
  if (tripleCount > BUFFERED_TRIPLES) return new Response(stream, { status: 200, headers });
  const body = await new Response(stream).arrayBuffer();
  return new Response(body, { status: 200, headers });
}
