/**
 * SPARQL 1.1 Query Results JSON Format, both ways, with N3.js terms: the one reader (and
 * writer) of the format for every part of the service.
 *
 * Answers of unknown size are read incrementally from the response body, so a query that
 * matches millions of rows costs the service only the rows it keeps: readers stop (and cancel
 * the body) once they have enough. Answers known to be small (one-item look-ups, the embedded
 * engine's worker) are parsed whole, which costs a fraction of the streaming reader; both
 * turn terms and rows into N3.js the same way ({@link rowFromSparqlJson}).
 */
import { DataFactory } from "n3";
import { literal } from "../rdf/language_tags.ts";
import type { Term } from "n3";
import { DomainError } from "../errors/domain_error.ts";

/** One row of SPARQL JSON results: variable name → term. */
export type SparqlRow = Map<string, Term>;

/** A term as SPARQL 1.1 JSON results write it. */
export interface SparqlJsonTerm {
  type: "uri" | "bnode" | "literal" | "typed-literal";
  value: string;
  "xml:lang"?: string;
  datatype?: string;
}

/** What a SPARQL JSON results document holds, read up to a row limit. */
export type SparqlJsonResults =
  | { kind: "bindings"; variables: string[]; rows: SparqlRow[]; truncated: boolean }
  | { kind: "boolean"; value: boolean };

/** The endpoint sent something that is not what the protocol promises. */
export function malformedResults(detail: string): DomainError {
  return new DomainError("store-error", {
    detail: `The SPARQL endpoint sent a malformed response: ${detail}`,
  });
}

/** An N3.js term for one SPARQL JSON term. */
export function termFromSparqlJson(term: SparqlJsonTerm): Term {
  switch (term.type) {
    case "uri":
      return DataFactory.namedNode(term.value);
    case "bnode":
      return DataFactory.blankNode(term.value);
    case "literal":
    case "typed-literal":
      if (term["xml:lang"]) return literal(term.value, term["xml:lang"]);
      return DataFactory.literal(
        term.value,
        term.datatype ? DataFactory.namedNode(term.datatype) : undefined,
      );
    default:
      throw malformedResults(`unsupported term type ${JSON.stringify(term.type)}`);
  }
}

/** A row of N3.js terms for one SPARQL JSON binding object. */
export function rowFromSparqlJson(binding: Record<string, SparqlJsonTerm>): SparqlRow {
  const row: SparqlRow = new Map();
  for (const [variable, term] of Object.entries(binding)) {
    if (typeof term !== "object" || term === null) {
      throw malformedResults(`the binding of ?${variable} is not a term`);
    }
    row.set(variable, termFromSparqlJson(term));
  }
  return row;
}

/**
 * Reads a SPARQL JSON results body: at most `limit` rows, `truncated` when the endpoint had
 * more. The body is cancelled as soon as the answer is known.
 */
export async function readSparqlJsonResults(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<SparqlJsonResults> {
  let variables: string[] | undefined;
  let booleanValue: boolean | undefined;
  const rows: SparqlRow[] = [];
  let truncated = false;
  for await (const value of scanSparqlJson(body)) {
    if (value.path === "head") {
      const vars = (value.value as { vars?: unknown }).vars;
      variables = Array.isArray(vars) ? vars.map(String) : [];
    } else if (value.path === "boolean") {
      booleanValue = value.value === true;
    } else if (rows.length < limit) {
      rows.push(rowFromSparqlJson(value.value as Record<string, SparqlJsonTerm>));
    } else {
      truncated = true;
      break;
    }
  }
  if (booleanValue !== undefined) return { kind: "boolean", value: booleanValue };
  // A document may put "head" after the bindings; if reading stopped first, name the
  // variables the kept rows use.
  variables ??= [...new Set(rows.flatMap((row) => [...row.keys()]))];
  return { kind: "bindings", variables, rows, truncated };
}

/** Every binding of a SPARQL JSON results body, as rows, in the endpoint's order. */
export async function* streamSparqlJsonRows(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<SparqlRow> {
  for await (const value of scanSparqlJson(body)) {
    if (value.path === "binding") {
      yield rowFromSparqlJson(value.value as Record<string, SparqlJsonTerm>);
    }
  }
}

/** A value found in a SPARQL JSON document: the head, the ASK boolean, or one binding. */
interface ScannedValue {
  path: "head" | "boolean" | "binding";
  value: unknown;
}

/** Yields the interesting values of a SPARQL JSON body as soon as each one is complete. */
async function* scanSparqlJson(body: ReadableStream<Uint8Array>): AsyncGenerator<ScannedValue> {
  const scanner = new SparqlJsonScanner();
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* scanner.push(value);
    }
    scanner.finish();
  } finally {
    // Stopping early (a limit reached) must not leave the connection streaming.
    await reader.cancel().catch(() => {});
  }
}

interface Frame {
  kind: "object" | "array";
  /** The current member name (objects) or element index (arrays). */
  key: string | number;
}

/**
 * A streaming JSON tokenizer that tracks only structure: it knows where each value starts
 * and ends and the member names leading to it, and hands complete values at the paths
 * `head`, `boolean` and `results.bindings[*]` to `JSON.parse`. Text that belongs to no
 * such value is discarded as soon as it is scanned.
 */
class SparqlJsonScanner {
  #text = "";
  #position = 0;
  #stack: Frame[] = [];
  #expectingKey = false;
  #inString = false;
  #escaped = false;
  #stringStart = -1;
  #primitiveStart = -1;
  #capture: { start: number; depth: number; path: ScannedValue["path"] } | undefined;
  #seenRoot = false;

  *push(chunk: string): Generator<ScannedValue> {
    this.#text += chunk;
    const text = this.#text;
    for (let i = this.#position; i < text.length; i++) {
      const c = text[i];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === "\\") this.#escaped = true;
        else if (c === '"') {
          this.#inString = false;
          const literal = text.slice(this.#stringStart, i + 1);
          if (this.#expectingKey) {
            this.#top().key = JSON.parse(literal);
            this.#expectingKey = false;
          } else {
            yield* this.#valueEnded(i + 1);
          }
        }
        continue;
      }
      if (this.#primitiveStart >= 0) {
        if (/[\w.+-]/.test(c)) continue;
        yield* this.#valueEnded(i);
        this.#primitiveStart = -1;
      }
      if (c === " " || c === "\n" || c === "\r" || c === "\t" || c === ":") continue;
      if (c === ",") {
        const top = this.#top();
        if (top.kind === "array") top.key = (top.key as number) + 1;
        else this.#expectingKey = true;
        continue;
      }
      if (c === "}" || c === "]") {
        this.#stack.pop();
        this.#expectingKey = false;
        yield* this.#valueEnded(i + 1);
        continue;
      }
      if (c === '"' && this.#expectingKey) {
        this.#inString = true;
        this.#stringStart = i;
        continue;
      }
      // A value starts here.
      this.#valueStarted(i);
      if (c === "{" || c === "[") {
        this.#stack.push({ kind: c === "{" ? "object" : "array", key: c === "{" ? "" : 0 });
        this.#expectingKey = c === "{";
      } else if (c === '"') {
        this.#inString = true;
        this.#stringStart = i;
      } else {
        this.#primitiveStart = i;
      }
    }
    this.#position = text.length;
    this.#discardScanned();
  }

  /** Fails if the document ended inside a value. */
  finish(): void {
    if (this.#primitiveStart >= 0) {
      // A bare top-level primitive is not a results document either.
      throw malformedResults("the JSON document is not an object");
    }
    if (!this.#seenRoot || this.#stack.length > 0 || this.#inString) {
      throw malformedResults("the JSON document ended early");
    }
  }

  #top(): Frame {
    const top = this.#stack[this.#stack.length - 1];
    if (!top) throw malformedResults("unexpected JSON structure");
    return top;
  }

  #valueStarted(index: number): void {
    if (this.#stack.length === 0) {
      if (this.#seenRoot) throw malformedResults("text after the JSON document");
      this.#seenRoot = true;
      return;
    }
    if (this.#capture) return;
    const path = this.#stack.map((frame) => frame.key);
    let wanted: ScannedValue["path"] | undefined;
    if (path.length === 1 && (path[0] === "head" || path[0] === "boolean")) wanted = path[0];
    else if (path.length === 3 && path[0] === "results" && path[1] === "bindings") {
      wanted = "binding";
    }
    if (wanted) this.#capture = { start: index, depth: this.#stack.length, path: wanted };
  }

  *#valueEnded(end: number): Generator<ScannedValue> {
    const capture = this.#capture;
    if (!capture || this.#stack.length !== capture.depth) return;
    this.#capture = undefined;
    const text = this.#text.slice(capture.start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw malformedResults(error instanceof Error ? error.message : String(error));
    }
    yield { path: capture.path, value };
  }

  /** Drops scanned text no pending value needs, so memory stays bounded by one value. */
  #discardScanned(): void {
    const keepFrom = Math.min(
      this.#position,
      this.#capture?.start ?? Infinity,
      this.#inString ? this.#stringStart : Infinity,
      this.#primitiveStart >= 0 ? this.#primitiveStart : Infinity,
    );
    if (keepFrom === 0) return;
    this.#text = this.#text.slice(keepFrom);
    this.#position -= keepFrom;
    if (this.#capture) this.#capture.start -= keepFrom;
    if (this.#inString) this.#stringStart -= keepFrom;
    if (this.#primitiveStart >= 0) this.#primitiveStart -= keepFrom;
  }
}

/** A parsed SELECT or ASK result. */
export type ParsedResults =
  | { kind: "bindings"; variables: string[]; rows: SparqlRow[] }
  | { kind: "boolean"; value: boolean };

/**
 * Parses a whole SPARQL JSON results document (an answer known to be small: `JSON.parse`
 * of the text costs a fraction of the streaming reader). Anything that is not a results
 * document is a backend-failed `store-error`.
 */
export function parseSparqlJsonResults(text: string): ParsedResults {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw malformedResults(`not JSON: ${(error as Error).message}`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw malformedResults("the JSON document is not an object");
  }
  const { head, boolean, results } = document as {
    head?: { vars?: unknown };
    boolean?: unknown;
    results?: { bindings?: unknown };
  };
  if (typeof boolean === "boolean") return { kind: "boolean", value: boolean };
  const bindings = results?.bindings;
  if (!Array.isArray(bindings)) throw malformedResults("the document has no results.bindings");
  const rows = bindings.map((binding) => {
    if (typeof binding !== "object" || binding === null) {
      throw malformedResults("a binding is not an object");
    }
    return rowFromSparqlJson(binding as Record<string, SparqlJsonTerm>);
  });
  const variables = Array.isArray(head?.vars)
    ? head.vars.map(String)
    : [...new Set(rows.flatMap((row) => [...row.keys()]))];
  return { kind: "bindings", variables, rows };
}

/**
 * Reads and parses a results body known to be small (the SPARQL store's one-item
 * look-ups); a body over `maxBytes` is refused rather than buffered.
 */
export async function readSmallSparqlJsonResults(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<ParsedResults> {
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw malformedResults(`a look-up answered with more than ${maxBytes} bytes`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return parseSparqlJsonResults(text + decoder.decode());
}

/** An n3 term as a JSON binding value. */
export function termToJson(term: Term): SparqlJsonTerm {
  switch (term.termType) {
    case "NamedNode":
      return { type: "uri", value: term.value };
    case "BlankNode":
      return { type: "bnode", value: term.value };
    case "Literal": {
      const result: SparqlJsonTerm = { type: "literal", value: term.value };
      if (term.language) result["xml:lang"] = term.language;
      else if (term.datatype.value !== "http://www.w3.org/2001/XMLSchema#string") {
        result.datatype = term.datatype.value;
      }
      return result;
    }
    default:
      return { type: "literal", value: term.value };
  }
}

/** Serialises bindings as a SPARQL JSON results document. */
export function writeSparqlJsonResults(variables: string[], rows: Map<string, Term>[]): string {
  return JSON.stringify({
    head: { vars: variables },
    results: {
      bindings: rows.map((row) => {
        const binding: Record<string, SparqlJsonTerm> = {};
        for (const [name, term] of row) binding[name] = termToJson(term);
        return binding;
      }),
    },
  });
}
