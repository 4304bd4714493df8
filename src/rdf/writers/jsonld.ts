/**
 * A streaming JSON-LD writer: a JSON array of node objects in expanded form.
 *
 * One node object per run of one subject (and graph). A predicate that comes back within
 * a run after another predicate, or a run with very many predicates, starts a new node
 * object with the same `@id`: expanded JSON-LD merges node objects by `@id`, so the graph
 * is the same and the writer holds nothing but the current run's predicate names.
 */
import type { Quad, Term } from "n3";
import type { QuadWriter, TextSink } from "./text_sink.ts";

const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
/** Most keys in one node object before the writer starts another for the same node. */
const MAX_KEYS_PER_OBJECT = 256;

/** `@id` of a subject, object or graph: the IRI, or `_:label` for a blank node. */
function nodeId(term: Term): string {
  if (term.termType === "NamedNode") return term.value;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  throw new TypeError(`A ${term.termType} term cannot be written as JSON-LD`);
}

/** The key a triple's values go under: `@type` for rdf:type with an IRI object. */
function keyOf(quad: Quad): string {
  const predicate = quad.predicate.value;
  return predicate === RDF_TYPE && quad.object.termType === "NamedNode" ? "@type" : predicate;
}

/** An object's expanded value: `"iri"` under `@type`, else a node or value object. */
function valueOf(key: string, object: Term): string {
  if (key === "@type") return JSON.stringify(object.value);
  if (object.termType !== "Literal") return `{"@id":${JSON.stringify(nodeId(object))}}`;
  const value = `{"@value":${JSON.stringify(object.value)}`;
  if (object.language) return `${value},"@language":${JSON.stringify(object.language)}}`;
  const datatype = object.datatype.value;
  return datatype === XSD_STRING || datatype === ""
    ? `${value}}`
    : `${value},"@type":${JSON.stringify(datatype)}}`;
}

class JsonLdWriter implements QuadWriter {
  readonly #sink: TextSink;
  #subject: Term | undefined;
  #graph: Term | undefined;
  #key: string | undefined;
  /** Keys already written in the open node object. */
  readonly #keys = new Set<string>();
  #objects = 0;

  constructor(sink: TextSink) {
    this.#sink = sink;
    sink.push("[");
  }

  write(quad: Quad): void {
    const key = keyOf(quad);
    const value = valueOf(key, quad.object);
    const sameNode = this.#subject !== undefined && quad.subject.equals(this.#subject) &&
      quad.graph.equals(this.#graph!);
    if (sameNode && key === this.#key) {
      this.#sink.push(`,${value}`);
      return;
    }
    if (!sameNode || this.#keys.has(key) || this.#keys.size >= MAX_KEYS_PER_OBJECT) {
      this.#closeNode();
      this.#openNode(quad);
    } else {
      this.#sink.push("],");
    }
    this.#keys.add(key);
    this.#key = key;
    this.#sink.push(`${JSON.stringify(key)}:[${value}`);
  }

  end(): void {
    this.#closeNode();
    this.#sink.push("\n]\n");
  }

  #openNode(quad: Quad): void {
    this.#subject = quad.subject;
    this.#graph = quad.graph;
    const id = `{"@id":${JSON.stringify(nodeId(quad.subject))},`;
    const separator = this.#objects++ === 0 ? "\n" : ",\n";
    this.#sink.push(
      quad.graph.termType === "DefaultGraph"
        ? `${separator}${id}`
        : `${separator}{"@id":${JSON.stringify(nodeId(quad.graph))},"@graph":[${id}`,
    );
  }

  #closeNode(): void {
    if (this.#subject === undefined) return;
    this.#sink.push(this.#graph!.termType === "DefaultGraph" ? "]}" : "]}]}");
    this.#subject = undefined;
    this.#graph = undefined;
    this.#key = undefined;
    this.#keys.clear();
  }
}

/** A JSON-LD writer; named graphs become `{"@id": graph, "@graph": [...]}` objects. */
export function createJsonLdWriter(sink: TextSink): QuadWriter {
  return new JsonLdWriter(sink);
}
