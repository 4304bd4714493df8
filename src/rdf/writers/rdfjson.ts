/**
 * A streaming RDF/JSON writer (RDF 1.1 JSON Alternate Serialization): one top-level key
 * per subject, written as soon as the subject's run ends.
 *
 * RDF/JSON cannot repeat a subject key, so the writer relies on all triples of a subject
 * being adjacent — the TripleStore contract for `readItem`, and what `serializeRdf`
 * arranges for in-memory arrays. Only the current subject is buffered (its predicates may
 * come in any order). A subject that comes back after another one would need the whole
 * graph in memory to merge, so it fails the stream loudly instead of writing invalid JSON.
 */
import type { Quad, Term } from "n3";
import { assertDefaultGraph, type QuadWriter, type TextSink } from "./text_sink.ts";

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

function nodeKey(term: Term): string {
  if (term.termType === "NamedNode") return term.value;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  throw new TypeError(`A ${term.termType} term cannot be written as RDF/JSON`);
}

/** One RDF/JSON object: `{"type", "value", "lang"?, "datatype"?}` as JSON text. */
function objectJson(object: Term): string {
  if (object.termType === "NamedNode") {
    return `{"type":"uri","value":${JSON.stringify(object.value)}}`;
  }
  if (object.termType === "BlankNode") {
    return `{"type":"bnode","value":${JSON.stringify(`_:${object.value}`)}}`;
  }
  if (object.termType !== "Literal") {
    throw new TypeError(`A ${object.termType} term cannot be written as RDF/JSON`);
  }
  const value = `{"type":"literal","value":${JSON.stringify(object.value)}`;
  if (object.language) return `${value},"lang":${JSON.stringify(object.language)}}`;
  const datatype = object.datatype.value;
  return datatype === XSD_STRING || datatype === ""
    ? `${value}}`
    : `${value},"datatype":${JSON.stringify(datatype)}}`;
}

class RdfJsonWriter implements QuadWriter {
  readonly #sink: TextSink;
  #subject: string | undefined;
  /** Predicate IRI → JSON objects of the current subject. */
  #predicates = new Map<string, string[]>();
  /** Subjects already written: a repeat would be a duplicate key. */
  readonly #written = new Set<string>();

  constructor(sink: TextSink) {
    this.#sink = sink;
    sink.push("{");
  }

  write(quad: Quad): void {
    assertDefaultGraph(quad, "RDF/JSON");
    const subject = nodeKey(quad.subject);
    if (subject !== this.#subject) {
      this.#flushSubject();
      if (this.#written.has(subject)) {
        throw new Error(
          `RDF/JSON needs all triples of a subject together, but ${subject} came back ` +
            "after other subjects",
        );
      }
      this.#subject = subject;
    }
    const predicate = nodeKey(quad.predicate);
    const objects = this.#predicates.get(predicate);
    if (objects) objects.push(objectJson(quad.object));
    else this.#predicates.set(predicate, [objectJson(quad.object)]);
  }

  end(): void {
    this.#flushSubject();
    this.#sink.push("\n}\n");
  }

  #flushSubject(): void {
    if (this.#subject === undefined) return;
    const separator = this.#written.size === 0 ? "\n" : ",\n";
    let text = `${separator}${JSON.stringify(this.#subject)}:{`;
    let first = true;
    for (const [predicate, objects] of this.#predicates) {
      text += `${first ? "" : ","}${JSON.stringify(predicate)}:[${objects.join(",")}]`;
      first = false;
    }
    this.#sink.push(`${text}}`);
    this.#written.add(this.#subject);
    this.#subject = undefined;
    this.#predicates = new Map();
  }
}

/** An RDF/JSON writer for a graph whose triples are grouped by subject. */
export function createRdfJsonWriter(sink: TextSink): QuadWriter {
  return new RdfJsonWriter(sink);
}
