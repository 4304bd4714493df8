/**
 * Streaming RDF serialisation: quads in, a byte stream out, produced as it is read.
 *
 * The stream pulls quads from the source only when its reader wants more, and hands out
 * chunks of about {@link CHUNK_SIZE} bytes, so a graph of millions of triples is written
 * with memory bounded by one chunk plus what the format's writer keeps between quads.
 */
import type { Quad } from "n3";
import { groupBySubject } from "./subject_groups.ts";
import type { RdfFormat } from "./formats.ts";
import { createJsonLdWriter } from "./writers/jsonld.ts";
import { createNQuadsWriter, createNTriplesWriter } from "./writers/ntriples.ts";
import { createRdfJsonWriter } from "./writers/rdfjson.ts";
import { createRdfXmlWriter } from "./writers/rdfxml.ts";
import { TextSink } from "./writers/text_sink.ts";
import type { QuadWriterFactory, WriterOptions } from "./writers/text_sink.ts";
import { createN3LibraryWriter } from "./writers/turtle.ts";

/** Target size of one emitted chunk, in UTF-16 code units of text before encoding. */
export const CHUNK_SIZE = 64 * 1024;

/** Options of {@link serializeRdf}. */
export interface SerializeOptions {
  /**
   * Prefix name → namespace IRI for Turtle, TriG, N3 (default: rdf, rdfs, xsd) and
   * RDF/XML (predicate namespaces are declared either way). Ignored by other formats.
   */
  prefixes?: Record<string, string>;
}

const WRITERS: Record<RdfFormat, QuadWriterFactory> = {
  ntriples: createNTriplesWriter,
  nquads: createNQuadsWriter,
  turtle: (sink, options) => createN3LibraryWriter(sink, "turtle", options),
  trig: (sink, options) => createN3LibraryWriter(sink, "trig", options),
  n3: (sink, options) => createN3LibraryWriter(sink, "n3", options),
  rdfxml: createRdfXmlWriter,
  jsonld: createJsonLdWriter,
  rdfjson: createRdfJsonWriter,
};

type QuadIterator = Iterator<Quad> | AsyncIterator<Quad>;

function iteratorOf(quads: AsyncIterable<Quad> | Iterable<Quad>): QuadIterator {
  // An array in memory costs one index to group, which the grouping syntaxes rely on.
  if (Array.isArray(quads)) return groupBySubject(quads)[Symbol.iterator]();
  if (Symbol.asyncIterator in quads) return quads[Symbol.asyncIterator]();
  return (quads as Iterable<Quad>)[Symbol.iterator]();
}

/**
 * Serialises quads as a UTF-8 byte stream in `format`.
 *
 * Quads are pulled from `quads` as the stream is read (an async iterable from the store
 * is never drained ahead of the reader). Arrays are regrouped by subject first; other
 * iterables must keep each subject's triples adjacent, as the TripleStore guarantees, or
 * RDF/JSON output fails. A quad the format cannot hold (a named graph in a triple format,
 * a predicate without an RDF/XML name, a character XML cannot carry) errors the stream;
 * invalid prefixes throw at once. Cancelling the stream closes the source iterator.
 */
export function serializeRdf(
  quads: AsyncIterable<Quad> | Iterable<Quad>,
  format: RdfFormat,
  options: SerializeOptions = {},
): ReadableStream<Uint8Array> {
  const sink = new TextSink();
  const writerOptions: WriterOptions = { prefixes: options.prefixes };
  const writer = WRITERS[format](sink, writerOptions);
  const encoder = new TextEncoder();
  let iterator: QuadIterator | undefined;
  let finished = false;

  const closeSource = async (reason?: unknown) => {
    finished = true;
    await iterator?.return?.(reason);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        iterator ??= iteratorOf(quads);
        while (!finished && sink.length < CHUNK_SIZE) {
          const next = await iterator.next();
          if (next.done) {
            finished = true;
            writer.end();
          } else {
            // Generalised RDF (blank node or literal predicates) has no place in any of
            // the formats; refusing it here spares every writer the check.
            if (next.value.predicate.termType !== "NamedNode") {
              throw new TypeError(`A ${next.value.predicate.termType} predicate is not RDF`);
            }
            writer.write(next.value);
          }
        }
      } catch (error) {
        await closeSource().catch(() => {});
        throw error;
      }
      if (sink.length > 0) controller.enqueue(encoder.encode(sink.take()));
      if (finished) controller.close();
    },
    async cancel(reason) {
      await closeSource(reason);
    },
  });
}
