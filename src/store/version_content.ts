/**
 * How a stored version's graph is kept compact: its triples as N-Triples (blank node labels
 * as written, so the version reads back with the same labels), deflated (raw DEFLATE, no
 * header). Synchronous, because the embedded store encodes inside its write transaction; a
 * store beside it (SPARQL) may keep the same bytes.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { Parser, type Quad } from "n3";
import { encodeTerm } from "../rdf/writers/ntriples.ts";

/** The graph's triples, deflated N-Triples. */
export function encodeVersionContent(quads: readonly Quad[]): Uint8Array {
  let text = "";
  for (const quad of quads) {
    text += `${encodeTerm(quad.subject)} ${encodeTerm(quad.predicate)} ${
      encodeTerm(quad.object)
    } .\n`;
  }
  return deflateRawSync(text);
}

/** The triples {@link encodeVersionContent} kept, blank node labels as written. */
export function decodeVersionContent(content: Uint8Array): Quad[] {
  const text = inflateRawSync(content).toString("utf8");
  // No prefix: the parser would otherwise rename every blank node (`b0_x`).
  return new Parser({ format: "N-Triples", blankNodePrefix: "" }).parse(text);
}
