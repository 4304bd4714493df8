/**
 * N-Triples answers of a SPARQL endpoint (CONSTRUCT, graph reads), read as a stream.
 *
 * N-Triples is line based, so the body is parsed in batches of whole lines: a graph of
 * millions of triples costs the service one batch at a time.
 */
import { Parser } from "n3";
import { writtenTagFactory } from "../rdf/language_tags.ts";
import type { Quad } from "n3";
import { malformedResults } from "./results_json.ts";

/**
 * The triples of an N-Triples body, parsed in batches of whole lines (N-Triples is line
 * based). Blank node labels are kept as the endpoint wrote them, so a node keeps its
 * identity across the batches of one response.
 */
export async function* streamNTriples(
  body: ReadableStream<Uint8Array>,
  batchChars = 1 << 18,
): AsyncGenerator<Quad> {
  let pending = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    if (pending.length < batchChars) continue;
    const lastNewline = pending.lastIndexOf("\n");
    if (lastNewline < 0) continue;
    yield* parseNTriplesBatch(pending.slice(0, lastNewline + 1));
    pending = pending.slice(lastNewline + 1);
  }
  if (pending.trim() !== "") yield* parseNTriplesBatch(pending);
}

function parseNTriplesBatch(text: string): Quad[] {
  try {
    return new Parser({
      format: "N-Triples",
      blankNodePrefix: "",
      factory: writtenTagFactory,
    }).parse(text);
  } catch (error) {
    throw malformedResults(`N-Triples: ${error instanceof Error ? error.message : error}`);
  }
}
