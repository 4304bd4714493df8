/**
 * Turtle, TriG and N3 writers: N3.js's `Writer`, fed one quad at a time and writing into
 * the serialiser's sink. N3.js keeps only the current subject, predicate and graph, so it
 * streams; it groups consecutive quads of one subject (`;`) and predicate (`,`).
 */
// @ts-types="@types/n3"
import { DataFactory, type Quad, type Term, Writer } from "n3";
import { isAbsoluteIri } from "../iri.ts";
import { portableBlankLabel } from "./blank_labels.ts";
import {
  assertDefaultGraph,
  type QuadWriter,
  type TextSink,
  type WriterOptions,
} from "./text_sink.ts";

/** Prefixes written when the caller names none. */
export const DEFAULT_PREFIXES: Readonly<Record<string, string>> = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
};

/** A prefix name N3.js can write and every Turtle parser reads (ASCII PN_PREFIX). */
const PREFIX_NAME = /^(?:[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?)?$/;

/** The syntaxes written by N3.js. */
export type N3WriterSyntax = "turtle" | "trig" | "n3";

const MEDIA_TYPES: Record<N3WriterSyntax, string> = {
  turtle: "text/turtle",
  trig: "application/trig",
  n3: "text/n3",
};

const LABELS: Record<N3WriterSyntax, string> = { turtle: "Turtle", trig: "TriG", n3: "N3" };

/** Checks prefixes up front: N3.js writes them verbatim, so a bad one breaks the output. */
function checkPrefixes(prefixes: Record<string, string>): void {
  for (const [name, iri] of Object.entries(prefixes)) {
    if (!PREFIX_NAME.test(name)) throw new TypeError(`Invalid prefix name "${name}"`);
    if (!isAbsoluteIri(iri)) throw new TypeError(`Prefix "${name}" names no absolute IRI: ${iri}`);
  }
}

/** Renames blank nodes whose labels the syntax would not accept. */
function portable<T extends Term>(term: T): T {
  if (term.termType !== "BlankNode") return term;
  const label = portableBlankLabel(term.value);
  return (label === term.value ? term : DataFactory.blankNode(label)) as T;
}

class N3LibraryWriter implements QuadWriter {
  readonly #writer: Writer;
  readonly #syntax: N3WriterSyntax;

  constructor(sink: TextSink, syntax: N3WriterSyntax, options: WriterOptions) {
    const prefixes = options.prefixes ?? DEFAULT_PREFIXES;
    checkPrefixes(prefixes);
    this.#syntax = syntax;
    const output = {
      write(chunk: string, _encoding: string, done?: () => void) {
        sink.push(chunk);
        done?.();
      },
      end(done?: () => void) {
        done?.();
      },
    };
    this.#writer = new Writer(output, { format: MEDIA_TYPES[syntax], prefixes, end: false });
  }

  write(quad: Quad): void {
    if (this.#syntax !== "trig") assertDefaultGraph(quad, LABELS[this.#syntax]);
    for (const term of [quad.subject, quad.predicate, quad.object, quad.graph]) {
      // N3.js's types predate RDF 1.2, whose triple terms have termType "Quad".
      if ((term.termType as string) === "Quad" || term.termType === "Variable") {
        throw new TypeError(`A ${term.termType} term cannot be written as RDF`);
      }
    }
    let failure: Error | undefined;
    // N3.js reports encoding errors only through the callback, never by throwing.
    this.#writer.addQuad(
      portable(quad.subject),
      quad.predicate,
      portable(quad.object),
      portable(quad.graph),
      (error?: Error | null) => {
        if (error) failure = error;
      },
    );
    if (failure) throw failure;
  }

  end(): void {
    this.#writer.end();
  }
}

/** A Turtle, TriG or N3 writer; `options.prefixes` defaults to rdf, rdfs and xsd. */
export function createN3LibraryWriter(
  sink: TextSink,
  syntax: N3WriterSyntax,
  options: WriterOptions,
): QuadWriter {
  return new N3LibraryWriter(sink, syntax, options);
}
