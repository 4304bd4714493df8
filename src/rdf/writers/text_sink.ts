/**
 * The contract between the streaming serialiser and the per-format writers.
 *
 * A writer turns quads into text and appends it to a {@link TextSink}; the serialiser
 * drains the sink into the response stream whenever it holds a chunk's worth. Writers keep
 * only what their syntax needs between quads (the current subject, a few open brackets),
 * so memory stays bounded whatever the size of the graph.
 */
import type { Quad } from "n3";

/** Collects written text until the serialiser takes it. */
export class TextSink {
  #parts: string[] = [];
  #length = 0;

  /** UTF-16 code units written since the last {@link take}: a cheap proxy for bytes. */
  get length(): number {
    return this.#length;
  }

  /** Appends text. */
  push(text: string): void {
    if (text.length === 0) return;
    this.#parts.push(text);
    this.#length += text.length;
  }

  /** Everything written since the last call, emptying the sink. */
  take(): string {
    const text = this.#parts.join("");
    this.#parts = [];
    this.#length = 0;
    return text;
  }
}

/** Writes one serialisation, quad by quad, into the sink it was created with. */
export interface QuadWriter {
  /** Writes one quad (a writer may hold back a bounded amount before writing it). */
  write(quad: Quad): void;
  /** Writes whatever closes the document; called once, also for an empty graph. */
  end(): void;
}

/** Options every writer understands. */
export interface WriterOptions {
  /** Prefix name → namespace IRI, used by the formats that abbreviate IRIs. */
  prefixes?: Record<string, string>;
}

/** Makes a writer for one format, writing into `sink`. */
export type QuadWriterFactory = (sink: TextSink, options: WriterOptions) => QuadWriter;

/** Refuses a quad outside the default graph in a format that holds one graph only. */
export function assertDefaultGraph(quad: Quad, format: string): void {
  if (quad.graph.termType !== "DefaultGraph") {
    throw new TypeError(
      `${format} holds a single graph; the quad in graph ${quad.graph.value} cannot be written`,
    );
  }
}
