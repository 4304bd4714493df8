/**
 * The quads of a document in a streamed format (the format table's `streamedImport`:
 * N-Triples, Turtle, N-Quads, TriG) parsed as its text streams in, each with the input line
 * it was read at, so that an import can name the line of the first triple it will not take
 * (a triple in a named graph, by subject).
 *
 * N3.js's own stream parser does not say where a quad was; its parser does, through the
 * tokens it reads (`onToken`, each token with its line). The text is fed to it chunk by chunk
 * and the quads of a chunk come out together: memory holds one chunk's quads at a time.
 */
// @ts-types="@types/n3"
import { Parser, type Quad } from "n3";
import { writtenTagFactory } from "../rdf/language_tags.ts";
import type { EventEmitter } from "node:events";
import { RDF_FORMATS, type StreamedImportFormat } from "../rdf/format_table.ts";

/** N3.js's callbacks with `onToken` (documented by N3.js 2; @types/n3 predates it). */
interface TokenCallbacks {
  onQuad: (error: Error | null, quad: Quad | null) => void;
  onToken: (token: { type: string; line: number }) => void;
}

/** A quad and where it was read. */
export interface LocatedQuad {
  quad: Quad;
  /**
   * The 1-based input line: in TriG, for a quad of a named graph, the line of the `{` that
   * opens its graph; otherwise the line of the token that ended the triple (in N-Triples and
   * N-Quads, the triple's own line).
   */
  line: number;
}

/**
 * The quads of the text in `chunks`. N3.js's syntax error (with its `context.line`) is
 * thrown as it is, and nothing is read after it.
 */
export async function* streamedQuads(
  chunks: AsyncIterable<string>,
  format: StreamedImportFormat,
  baseIRI: string | undefined,
): AsyncIterable<LocatedQuad> {
  // N3.js knows a syntax by its media type.
  const parser = new Parser({
    format: RDF_FORMATS[format].mediaType,
    baseIRI,
    factory: writtenTagFactory,
  });
  let tokenLine = 1;
  let graphLine = 1;
  let pending: LocatedQuad[] = [];
  let failure: unknown;
  let onData: (chunk: string) => void = () => {};
  let onEnd: () => void = () => {};
  // The parser reads a stream through `on('data')` and `on('end')`; it is handed the two
  // callbacks and calls them back synchronously, so each chunk's quads are out once fed.
  const input = {
    on(event: string, callback: (chunk?: string) => void) {
      if (event === "data") onData = callback as (chunk: string) => void;
      if (event === "end") onEnd = callback as () => void;
      return input;
    },
  };
  const callbacks: TokenCallbacks = {
    onQuad: (error, quad) => {
      if (error) failure ??= error;
      else if (quad) {
        const named = quad.graph.termType !== "DefaultGraph" && format === "trig";
        pending.push({ quad, line: named ? graphLine : tokenLine });
      }
    },
    onToken: (token) => {
      tokenLine = token.line;
      if (token.type === "{") graphLine = token.line;
    },
  };
  parser.parse(input as unknown as EventEmitter, callbacks as Pick<TokenCallbacks, "onQuad">);
  const flush = function* (): Iterable<LocatedQuad> {
    const quads = pending;
    pending = [];
    yield* quads;
    if (failure !== undefined) throw failure;
  };
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    onData(chunk);
    yield* flush();
  }
  onEnd();
  yield* flush();
}
