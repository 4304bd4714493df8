/**
 * SELECT and ASK results in the four SPARQL 1.1 results formats (JSON, XML, CSV, TSV),
 * written as byte streams: one row per pull, so a response never holds a second copy of
 * the rows as one big string.
 *
 * Written by hand: each format is a page of the W3C recommendations, and the npm writers
 * found either buffer the whole document or pull in a whole RDF framework.
 */
import type { Term } from "n3";
import { negotiateMediaType } from "../rdf/formats.ts";
import { termToJson } from "./results_json.ts";

/** A results format of the SPARQL 1.1 Protocol. */
export type ResultsFormat = "json" | "xml" | "csv" | "tsv";

/** The SPARQL 1.1 Query Results JSON media type: what the service asks endpoints for. */
export const SPARQL_RESULTS_JSON = "application/sparql-results+json";

/** The Content-Type each results format is answered with. */
export const RESULTS_MEDIA_TYPES: Record<ResultsFormat, string> = {
  json: SPARQL_RESULTS_JSON,
  xml: "application/sparql-results+xml; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  tsv: "text/tab-separated-values; charset=utf-8",
};

/** Media types that ask for each format, the registered one first. */
const ACCEPTED: readonly (readonly [ResultsFormat, readonly string[]])[] = [
  ["json", [SPARQL_RESULTS_JSON, "application/json"]],
  ["xml", ["application/sparql-results+xml", "application/xml", "text/xml"]],
  ["csv", ["text/csv"]],
  ["tsv", ["text/tab-separated-values"]],
];

/**
 * The results format an `Accept` header asks for; JSON without a header or for `*\/*`,
 * undefined (406) when none is acceptable. Negotiated as RDF formats are
 * (`negotiateMediaType`): the highest weight, then the most specific range, then the
 * client's order.
 */
export function negotiateResultsFormat(accept: string | undefined): ResultsFormat | undefined {
  return negotiateMediaType(accept, ACCEPTED, "json");
}

/** SELECT rows in `format`, as a stream of UTF-8 chunks. */
export function writeBindings(
  format: ResultsFormat,
  variables: string[],
  rows: Iterable<Map<string, Term>>,
): ReadableStream<Uint8Array> {
  const writer = BINDING_WRITERS[format];
  return textStream(writer.head(variables), rowTexts(writer, variables, rows), writer.tail);
}

/**
 * An ASK answer in `format`. CSV and TSV define no boolean form; like Apache Jena, they
 * carry it as the single variable `_askResult`.
 */
export function writeBoolean(format: ResultsFormat, value: boolean): ReadableStream<Uint8Array> {
  const text = {
    json: JSON.stringify({ head: {}, boolean: value }),
    xml: `${XML_HEAD}<head></head><boolean>${value}</boolean></sparql>\n`,
    csv: `_askResult\r\n${value}\r\n`,
    tsv: `?_askResult\n${value}\n`,
  }[format];
  return textStream(text, [], "");
}

interface BindingWriter {
  head(variables: string[]): string;
  row(variables: string[], row: Map<string, Term>): string;
  /** Written between two rows. */
  separator: string;
  tail: string;
}

const XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n' +
  '<sparql xmlns="http://www.w3.org/2005/sparql-results#">';

const BINDING_WRITERS: Record<ResultsFormat, BindingWriter> = {
  json: {
    head: (variables) => `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[`,
    row: (_variables, row) => {
      const binding: Record<string, unknown> = {};
      for (const [name, term] of row) binding[name] = termToJson(term);
      return JSON.stringify(binding);
    },
    separator: ",",
    tail: "]}}",
  },
  xml: {
    head: (variables) =>
      `${XML_HEAD}<head>${
        variables.map((name) => `<variable name="${xmlEscape(name)}"/>`).join("")
      }</head><results>\n`,
    row: (_variables, row) => {
      let text = "<result>";
      for (const [name, term] of row) {
        text += `<binding name="${xmlEscape(name)}">${xmlTerm(term)}</binding>`;
      }
      return `${text}</result>\n`;
    },
    separator: "",
    tail: "</results></sparql>\n",
  },
  csv: {
    head: (variables) => `${variables.map(csvField).join(",")}\r\n`,
    row: (variables, row) =>
      `${variables.map((name) => csvField(csvValue(row.get(name)))).join(",")}\r\n`,
    separator: "",
    tail: "",
  },
  tsv: {
    head: (variables) => `${variables.map((name) => `?${name}`).join("\t")}\n`,
    row: (variables, row) => {
      const terms = variables.map((name) => row.get(name));
      return `${terms.map((term) => (term ? tsvTerm(term) : "")).join("\t")}\n`;
    },
    separator: "",
    tail: "",
  },
};

/** Each row's text, after the writer's separator from the second row on. */
function* rowTexts(
  writer: BindingWriter,
  variables: string[],
  rows: Iterable<Map<string, Term>>,
): Iterable<string> {
  let first = true;
  for (const row of rows) {
    yield first ? writer.row(variables, row) : writer.separator + writer.row(variables, row);
    first = false;
  }
}

/** A stream of `head`, each row text, then `tail`: one chunk per pull. */
function textStream(
  head: string,
  rows: Iterable<string>,
  tail: string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = rows[Symbol.iterator]();
  let started = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(head));
        return;
      }
      const next = iterator.next();
      if (!next.done) {
        controller.enqueue(encoder.encode(next.value));
        return;
      }
      if (tail) controller.enqueue(encoder.encode(tail));
      controller.close();
    },
    cancel() {
      iterator.return?.();
    },
  });
}

/**
 * Text as XML character data or an attribute value. A carriage return is written as a
 * character reference: XML parsers turn a raw one (and CR LF) into a line feed, which would
 * change the literal.
 */
function xmlEscape(text: string): string {
  return text.replace(
    /[&<>"\r]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#xD;" })[c]!,
  );
}

function xmlTerm(term: Term): string {
  const json = termToJson(term);
  if (json.type === "uri") return `<uri>${xmlEscape(json.value)}</uri>`;
  if (json.type === "bnode") return `<bnode>${xmlEscape(json.value)}</bnode>`;
  const lang = json["xml:lang"] ? ` xml:lang="${xmlEscape(json["xml:lang"])}"` : "";
  const datatype = json.datatype ? ` datatype="${xmlEscape(json.datatype)}"` : "";
  return `<literal${lang}${datatype}>${xmlEscape(json.value)}</literal>`;
}

/**
 * A term as SPARQL 1.1 CSV writes it: an IRI or a literal as its bare text, a blank node as
 * `_:label` (so it is told apart from a literal), unbound as the empty field.
 */
function csvValue(term: Term | undefined): string {
  if (term === undefined) return "";
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}

/** RFC 4180 quoting, as SPARQL 1.1 CSV asks: only fields that need it. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const XSD = "http://www.w3.org/2001/XMLSchema#";
/** Turtle's number tokens: a literal of the type whose form is one is written bare. */
const TURTLE_NUMBERS: Record<string, RegExp> = {
  [`${XSD}integer`]: /^[+-]?[0-9]+$/,
  [`${XSD}decimal`]: /^[+-]?[0-9]*\.[0-9]+$/,
  [`${XSD}double`]: /^[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+$/,
};

/**
 * A term in Turtle syntax, as SPARQL 1.1 TSV asks; numbers in Turtle's short form when their
 * form is a Turtle number (`4`, `5.5`, `1.0e6`), as the TSV specification's examples write them.
 */
function tsvTerm(term: Term): string {
  if (term.termType === "NamedNode") return `<${term.value}>`;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  if (term.termType !== "Literal") return "";
  const escaped = term.value.replace(
    /[\\"\t\n\r]/g,
    (c) => ({ "\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!,
  );
  if (term.language) return `"${escaped}"@${term.language}`;
  const datatype = term.datatype.value;
  if (TURTLE_NUMBERS[datatype]?.test(term.value)) return term.value;
  return datatype === "http://www.w3.org/2001/XMLSchema#string"
    ? `"${escaped}"`
    : `"${escaped}"^^<${datatype}>`;
}
