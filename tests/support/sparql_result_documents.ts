/**
 * SPARQL 1.1 results documents read back into terms, written by tests without the service's
 * own readers, so that the service's writers are checked by an independent reading: the XML
 * format, and CSV and TSV (answers and the suites' expected files alike).
 *
 * TSV carries RDF terms: each field is read as Turtle reads a term, so `1.0e6` is the double
 * "1.0e6" and `"a"@en` a tagged string. CSV carries text only: an IRI and a literal are both
 * their text (a plain string here), `_:x` a blank node, and an empty field unbound; a
 * comparison reads both sides so.
 */
// @ts-types="@types/n3"
import { DataFactory, Parser, type Term } from "n3";
// @ts-types="../../src/rdf/xmldom.d.ts"
import { DOMParser } from "@xmldom/xmldom";

/** A SELECT's or an ASK's answer. */
export type ResultsDocument =
  | { kind: "boolean"; value: boolean }
  | { kind: "bindings"; variables: string[]; rows: Map<string, Term>[]; ordered: boolean };

/** What is read here of an xmldom node (its own typings pull in the DOM library). */
interface XmlNode {
  nodeType: number;
  tagName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlNode>;
}

/** SPARQL Query Results XML. Throws on a document that is not one. */
export function parseXmlResults(text: string): ResultsDocument {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: (level: string, message: string) => {
      if (level !== "warning") errors.push(message);
    },
  }).parseFromString(text, "text/xml") as unknown as XmlNode;
  if (errors.length > 0) throw new Error(`not well-formed XML: ${errors[0]}`);
  const boolean = doc.getElementsByTagName("boolean")[0];
  if (boolean) return { kind: "boolean", value: boolean.textContent?.trim() === "true" };
  if (!doc.getElementsByTagName("sparql")[0]) throw new Error("no <sparql> element");
  const variables = Array.from(doc.getElementsByTagName("variable")).map((v) =>
    v.getAttribute("name")!
  );
  const rows = Array.from(doc.getElementsByTagName("result")).map((result) => {
    const row = new Map<string, Term>();
    for (const binding of Array.from(result.getElementsByTagName("binding"))) {
      const value = Array.from(binding.childNodes).find((n) => n.nodeType === 1);
      if (!value) throw new Error(`an empty <binding name="${binding.getAttribute("name")}">`);
      row.set(binding.getAttribute("name")!, xmlTerm(value));
    }
    return row;
  });
  return { kind: "bindings", variables, rows, ordered: true };
}

function xmlTerm(value: XmlNode): Term {
  const content = value.textContent ?? "";
  if (value.tagName === "uri") return DataFactory.namedNode(content);
  if (value.tagName === "bnode") return DataFactory.blankNode(content);
  if (value.tagName !== "literal") throw new Error(`unknown term element <${value.tagName}>`);
  const language = value.getAttribute("xml:lang");
  const datatype = value.getAttribute("datatype");
  return DataFactory.literal(
    content,
    language || (datatype ? DataFactory.namedNode(datatype) : undefined),
  );
}

/** SPARQL 1.1 TSV: a header of `?name`s, then one line of Turtle terms per row. */
export function parseTsv(text: string): ResultsDocument {
  const [head, ...lines] = withoutFinalBreak(text).split(/\r?\n/);
  const variables = head === "" ? [] : head.split("\t").map((name) => name.replace(/^\?/, ""));
  const rows = lines.map((line) => {
    const row = new Map<string, Term>();
    line.split("\t").forEach((field, i) => {
      if (field !== "") row.set(variables[i] ?? `#${i}`, turtleTerm(field));
    });
    return row;
  });
  return { kind: "bindings", variables, rows, ordered: true };
}

/** One TSV field as Turtle reads it; blank node labels kept, so rows can share them. */
function turtleTerm(field: string): Term {
  if (field.startsWith("_:")) return DataFactory.blankNode(field.slice(2));
  const [quad] = new Parser({ format: "Turtle" }).parse(`<urn:s> <urn:p> ${field} .`);
  if (!quad) throw new Error(`not a Turtle term: ${field}`);
  return quad.object;
}

/** SPARQL 1.1 CSV (RFC 4180 fields): values as text, `_:x` a blank node, empty unbound. */
export function parseCsv(text: string): ResultsDocument {
  const [head, ...records] = csvRecords(withoutFinalBreak(text));
  const variables = head.length === 1 && head[0] === "" ? [] : head;
  const rows = records.map((fields) => {
    const row = new Map<string, Term>();
    fields.forEach((field, i) => {
      if (field === "") return;
      const name = variables[i] ?? `#${i}`;
      row.set(
        name,
        field.startsWith("_:") ? DataFactory.blankNode(field.slice(2)) : DataFactory.literal(field),
      );
    });
    return row;
  });
  return { kind: "bindings", variables, rows, ordered: true };
}

function withoutFinalBreak(text: string): string {
  return text.replace(/\r?\n$/, "");
}

/** RFC 4180 records: fields split on commas, quoted fields may hold commas, quotes, breaks. */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let i = 0;
  while (i <= text.length) {
    const c = text[i];
    if (c === '"' && field === "") {
      const end = closingQuote(text, i + 1);
      field = text.slice(i + 1, end).replace(/""/g, '"');
      i = end + 1;
      continue;
    }
    if (c === "," || c === "\n" || c === "\r" || c === undefined) {
      fields.push(field);
      field = "";
      if (c !== ",") {
        records.push(fields);
        fields = [];
        if (c === "\r" && text[i + 1] === "\n") i++;
      }
      i++;
      continue;
    }
    field += c;
    i++;
  }
  return records;
}

function closingQuote(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    if (text[i] === '"' && text[i + 1] === '"') i += 2;
    else if (text[i] === '"') return i;
    else i++;
  }
  throw new Error("an unterminated quoted CSV field");
}
