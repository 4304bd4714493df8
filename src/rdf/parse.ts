/**
 * RDF request bodies to quads, one entry point for every format.
 *
 * Turtle, N-Triples, N-Quads, TriG and N3 go through N3.js (its errors carry line
 * numbers); RDF/XML through oxigraph, behind a guard against entity expansion; JSON-LD
 * and RDF/JSON through their own modules. Everything user-facing is a DomainError (`src/errors/`).
 */
// @ts-types="@types/n3"
import { Parser, type Quad, type Term } from "n3";
import oxigraph from "oxigraph";
import { DomainError } from "../errors/domain_error.ts";
import { rdfSyntaxProblem, relativeIriProblem } from "./syntax_errors.ts";
import { RDF_FORMATS, type RdfFormat } from "./formats.ts";
import { isAbsoluteIri } from "./iri.ts";
import { parseJsonLd } from "./jsonld_parse.ts";
import { looksLikeRdfJson, parseRdfJson } from "./rdfjson.ts";
import { fromOxigraphQuad } from "./oxigraph_terms.ts";
import { TagSpellings, writtenTagFactory } from "./language_tags.ts";
import { canonicalXmlLiterals } from "./xml_literal.ts";

/** Options of {@link parseRdf}. */
export interface ParseOptions {
  /** JSON-LD context URL → local copy (`service.jsonld.contexts`); nothing else is fetched. */
  contexts?: Record<string, unknown>;
  /**
   * Base IRI against which relative IRIs are resolved (the `base` query parameter); the
   * document's own @base, xml:base or JSON-LD @base applies over it as each syntax says.
   * Without one, a relative IRI is a 400 `relative-iri`.
   */
  baseIri?: string;
}

/** Parsed quads and the format they were read as (`json` resolves to a flavour). */
export interface ParseResult {
  quads: Quad[];
  format: RdfFormat;
}

/** The formats the N3 parser reads. */
type N3Format = "turtle" | "ntriples" | "nquads" | "trig" | "n3";

/**
 * Parses an RDF document. `"json"` detects JSON-LD or RDF/JSON by shape and answers 415
 * (`unsupported-media-type`) when the JSON is neither. Errors: 400 `rdf-syntax` (with
 * line and column when known), 400 `relative-iri` (a relative IRI and no base), 400
 * `invalid-jsonld`, 400 `remote-context-refused`. rdf:XMLLiteral values come back in
 * exclusive canonical XML. Duplicate quads are kept: callers decide.
 */
export async function parseRdf(
  text: string,
  format: RdfFormat | "json",
  options: ParseOptions = {},
): Promise<ParseResult> {
  // A byte order mark is legal at the start of any of these documents but not in a token.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const result = await parseBody(body, format, options);
  return { quads: canonicalXmlLiterals(result.quads), format: result.format };
}

async function parseBody(
  body: string,
  format: RdfFormat | "json",
  options: ParseOptions,
): Promise<ParseResult> {
  switch (format) {
    case "json": {
      const doc = parseJson(body, "JSON");
      const detected = detectJsonFlavour(doc);
      return detected === "rdfjson"
        ? { quads: checkRdfJsonLiterals(parseRdfJson(doc)), format: "rdfjson" }
        : { quads: checkJsonLdTerms(await parseJsonLd(doc, options)), format: "jsonld" };
    }
    case "jsonld":
      return {
        quads: checkJsonLdTerms(await parseJsonLd(parseJson(body, "JSON-LD"), options)),
        format,
      };
    case "rdfjson":
      return { quads: checkRdfJsonLiterals(parseRdfJson(parseJson(body, "RDF/JSON"))), format };
    case "rdfxml":
      return { quads: parseRdfXml(body, options.baseIri), format };
    case "turtle":
    case "ntriples":
    case "nquads":
    case "trig":
    case "n3":
      return { quads: parseWithN3(body, format, options.baseIri), format };
    default:
      return unknownFormat(format);
  }
}

/**
 * A format no parser reads: the type system rules it out (adding a format to `RdfFormat`
 * without a parser fails to compile here), but a caller outside it (a worker message) could
 * still send one.
 */
function unknownFormat(format: never): never {
  throw new DomainError("unsupported-media-type", {
    detail: `The service reads no RDF format named ${JSON.stringify(format)}.`,
  });
}

/** Which JSON flavour a parsed body is, or a 415 when it looks like neither. */
function detectJsonFlavour(doc: unknown): "jsonld" | "rdfjson" {
  if (looksLikeRdfJson(doc)) return "rdfjson";
  const isObject = typeof doc === "object" && doc !== null;
  if (Array.isArray(doc) && doc.every((entry) => typeof entry === "object" && entry !== null)) {
    return "jsonld";
  }
  if (isObject && !Array.isArray(doc)) {
    const keys = Object.keys(doc);
    // JSON-LD keywords, or full IRIs as property names (expanded form without @id).
    if (keys.some((key) => key.startsWith("@"))) return "jsonld";
    if (keys.length > 0 && keys.every(isAbsoluteIri)) return "jsonld";
  }
  throw new DomainError("unsupported-media-type", {
    detail:
      "The JSON body is neither JSON-LD (no @context, @id, @graph or @type, nor IRI keys) nor " +
      "RDF/JSON (an object of subjects → predicates → arrays of {type, value}). Send it as " +
      `${RDF_FORMATS.jsonld.mediaType} or ${RDF_FORMATS.rdfjson.mediaType}.`,
  });
}

// ---------------------------------------------------------------------------------------
// JSON text

/** `JSON.parse`, with a 400 naming the line and column of a syntax error. */
function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reported = /\(line (\d+) column (\d+)\)/.exec(message);
    if (reported) {
      throw rdfSyntaxProblem(label, message, Number(reported[1]), Number(reported[2]));
    }
    const offset = locateJsonError(text);
    if (offset === undefined) throw rdfSyntaxProblem(label, message);
    const { line, column } = lineAndColumn(text, offset);
    throw rdfSyntaxProblem(label, message.split("\n")[0], line, column);
  }
}

/** 1-based line and column of a UTF-16 offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The offset of the first JSON syntax error, for the messages V8 gives without a position
 * (`Unexpected token …`). Only runs on the error path. Undefined if none is found.
 */
function locateJsonError(text: string): number | undefined {
  let i = 0;
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const skipSpace = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const expect = (character: string) => {
    if (text[i] !== character) throw i;
    i++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      if (i >= text.length || text.charCodeAt(i) < 0x20) throw i;
      const c = text[i++];
      if (c === '"') return;
      if (c === "\\") {
        if (text[i] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
        else if ('"\\/bfnrt'.includes(text[i] ?? "x")) i++;
        else throw i;
      }
    }
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      skipSpace();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === "{") {
          skipSpace();
          string();
          skipSpace();
          expect(":");
        }
        value();
        skipSpace();
        if (text[i] !== ",") return expect(close);
        i++;
      }
    }
    if (c === '"') return string();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) return void (i += word.length);
    }
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) throw i;
    i = NUMBER.lastIndex;
  };
  try {
    value();
    skipSpace();
    return i < text.length ? i : undefined;
  } catch (position) {
    // A RangeError is a nesting too deep to scan: no position then.
    return typeof position === "number" ? position : undefined;
  }
}

// ---------------------------------------------------------------------------------------
// Turtle family (N3.js)

function parseWithN3(text: string, format: N3Format, baseIri?: string): Quad[] {
  const label = RDF_FORMATS[format].label;
  let quads: Quad[];
  try {
    // N3.js knows a syntax by its media type: the table's.
    const syntax = RDF_FORMATS[format].mediaType;
    quads = new Parser({ format: syntax, baseIRI: baseIri, factory: writtenTagFactory }).parse(
      text,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const context =
      (error as { context?: { line?: number; token?: { line?: number; start?: number } } })
        .context;
    const line = context?.line;
    const token = context?.token;
    const column = token && token.line === line && token.start !== undefined
      ? token.start + 1
      : undefined;
    throw rdfSyntaxProblem(label, message.replace(/ on line \d+\.?$/, ""), line, column);
  }
  for (const quad of quads) checkPlainRdf(quad, label);
  return quads;
}

/** What an IRI starts with; a reference without one is relative (RFC 3986, 4.2). */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*:/;

/** A language tag as the N-Triples LANGTAG production has it (RDF 1.2 direction apart). */
const LANGUAGE_TAG = /^[a-zA-Z]+(?:-[a-zA-Z0-9]+)*$/;

/**
 * jsonld.js only checks that an IRI has a scheme and no white space, and passes language
 * tags through: `"https://x.org/a>b"` or `"@language": "en> ."` would reach the store and
 * come out as broken N-Triples, Turtle or SPARQL. JSON-LD terms get the checks the other
 * parsers make.
 */
function checkJsonLdTerms(quads: Quad[]): Quad[] {
  for (const quad of quads) checkPlainRdf(quad, "JSON-LD");
  return quads;
}

/**
 * RDF strings are Unicode scalar values: an unpaired surrogate (a JSON `"\ud800"`) would be
 * written as U+FFFD by every UTF-8 download, changing the literal silently.
 */
function checkWellFormed(value: string, label: string): void {
  if (!value.isWellFormed()) {
    throw rdfSyntaxProblem(
      label,
      `the literal ${JSON.stringify(value.slice(0, 80))} holds an unpaired surrogate`,
    );
  }
}

/** RDF/JSON checks its own terms (rdfjson.ts) but for unpaired surrogates in literals. */
function checkRdfJsonLiterals(quads: Quad[]): Quad[] {
  for (const { object } of quads) {
    if (object.termType === "Literal") checkWellFormed(object.value, "RDF/JSON");
  }
  return quads;
}

/**
 * Refuses what N3.js accepts beyond RDF 1.1 graphs: N3 formulas and variables, RDF 1.2
 * triple terms, and IRIs left relative for want of a base (400 `relative-iri`). None of them can be stored
 * or written back in every output format. IRIs, datatypes and language tags must also be
 * ones that every output format can write as they are.
 */
function checkPlainRdf(quad: Quad, label: string): void {
  const terms: Term[] = [quad.subject, quad.predicate, quad.object, quad.graph];
  for (const term of terms) {
    // N3.js's types predate RDF 1.2, whose triple terms have termType "Quad".
    if ((term.termType as string) === "Quad") {
      throw rdfSyntaxProblem(label, "RDF 1.2 triple terms (<<( … )>>) are not supported");
    }
    if (term.termType === "Variable") {
      throw rdfSyntaxProblem(
        label,
        `N3 variables are not RDF and are not supported: ?${term.value}`,
      );
    }
    if (term.termType === "NamedNode" && !isAbsoluteIri(term.value)) {
      if (!HAS_SCHEME.test(term.value)) throw relativeIriProblem(label, term.value);
      throw rdfSyntaxProblem(
        label,
        `<${term.value}> is not an absolute IRI (RFC 3987: a scheme, no white space, ` +
          'control characters or any of <>"{}|\\^`, well-formed %XX escapes)',
      );
    }
    if (term.termType === "Literal") {
      checkWellFormed(term.value, label);
      if (term.language && !LANGUAGE_TAG.test(term.language)) {
        throw rdfSyntaxProblem(label, `${JSON.stringify(term.language)} is not a language tag`);
      }
      if (!HAS_SCHEME.test(term.datatype.value)) {
        throw relativeIriProblem(label, term.datatype.value);
      }
      if (!isAbsoluteIri(term.datatype.value)) {
        throw rdfSyntaxProblem(
          label,
          `the datatype ${JSON.stringify(term.datatype.value)} is not an absolute IRI`,
        );
      }
    }
  }
  if (label === "N3" && quad.graph.termType !== "DefaultGraph") {
    throw rdfSyntaxProblem(label, "N3 formulas ({ … }) are not RDF and are not supported");
  }
}

// ---------------------------------------------------------------------------------------
// RDF/XML (oxigraph)

/** More entity declarations than any real RDF/XML document uses. */
const MAX_ENTITY_DECLARATIONS = 1000;

/**
 * Most characters declared entities may expand to: a fixed allowance plus a multiple of
 * the document's size, so a large OWL file that writes `&xsd;` everywhere still passes.
 */
function entityExpansionBudget(documentLength: number): number {
  return 8 * 1024 * 1024 + 8 * documentLength;
}

/**
 * Refuses DTDs that could make the XML parser fetch or blow up: external and parameter
 * entities, and internal entities whose total expansion (counting each reference in the
 * document) would pass {@link entityExpansionBudget} — the billion-laughs attack, which
 * oxigraph would otherwise expand until its WASM memory runs out.
 */
function guardXmlEntities(text: string): void {
  // The XML parser takes the keyword in any case (`<!doctype`), so the guard must too.
  const doctype = text.search(/<!DOCTYPE/i);
  if (doctype === -1) return;
  // Declarations and references are searched in the whole rest of the document, not in a
  // guessed extent of the internal subset: a `]>` inside an entity value cannot hide one.
  const rest = text.slice(doctype);
  const refuse = (reason: string): never => {
    throw rdfSyntaxProblem("RDF/XML", `document type declaration refused: ${reason}`);
  };
  const values = new Map<string, string>();
  const declaration = /<!ENTITY\s+(%\s*)?([^\s"']+)\s*(?:"([^"]*)"|'([^']*)'|(\S+))/g;
  for (const match of rest.matchAll(declaration)) {
    const [, parameter, name, doubleQuoted, singleQuoted, keyword] = match;
    if (parameter) refuse(`parameter entity %${name} is not supported`);
    if (keyword !== undefined) refuse(`external entity &${name}; (${keyword}) is never loaded`);
    if (!values.has(name)) values.set(name, doubleQuoted ?? singleQuoted ?? "");
  }
  if (values.size === 0) return;
  // Also bounds the recursion below.
  if (values.size > MAX_ENTITY_DECLARATIONS) refuse("too many entity declarations");
  const budget = entityExpansionBudget(text.length);
  const expanded = new Map<string, number>();
  const reference = /&([^\s&;#]+);/g;
  const sizeOf = (name: string, active: Set<string>): number => {
    const known = expanded.get(name);
    if (known !== undefined) return known;
    if (active.has(name)) refuse(`entity &${name}; refers to itself`);
    active.add(name);
    const value = values.get(name)!;
    let size = value.length;
    for (const [whole, inner] of value.matchAll(reference)) {
      if (values.has(inner)) size += sizeOf(inner, active) - whole.length;
      if (size > budget) refuse(`entity &${name}; expands too far`);
    }
    active.delete(name);
    expanded.set(name, size);
    return size;
  };
  // References inside entity values are counted again here: an overestimate, on purpose.
  let total = 0;
  for (const [, name] of rest.matchAll(reference)) {
    if (!values.has(name)) continue;
    total += sizeOf(name, new Set());
    if (total > budget) refuse("entities expand to too much text");
  }
}

/** An `xml:lang` attribute's value (the tag; empty resets it), in either quote. */
const XML_LANG = /\bxml:lang\s*=\s*(["'])([^"'<>]*)\1/g;

function parseRdfXml(text: string, baseIri?: string): Quad[] {
  guardXmlEntities(text);
  const options = { format: "application/rdf+xml", base_iri: baseIri };
  let parsed: unknown[];
  try {
    parsed = oxigraph.parse(text, options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // oxigraph refuses a relative reference it has no base for as an IRI without scheme.
    const relative = /error while parsing IRI '([^']*)': No scheme found/.exec(message);
    if (relative && !HAS_SCHEME.test(relative[1])) {
      throw relativeIriProblem("RDF/XML", relative[1]);
    }
    throw rdfSyntaxProblem("RDF/XML", message, errorLine(text, options));
  }
  // oxigraph lower-cases `xml:lang`: the document's own attributes give the written tags.
  const spellings = new TagSpellings();
  for (const match of text.matchAll(XML_LANG)) spellings.note(match[2]);
  const quads = parsed.map((quad) => spellings.restoreQuad(fromOxigraphQuad(quad)));
  for (const quad of quads) checkPlainRdf(quad, "RDF/XML");
  return quads;
}

/**
 * oxigraph's RDF/XML errors carry no position. Feeding the document line by line and
 * seeing which line was last handed over when the parser failed recovers the line; it
 * only runs on the error path.
 */
function errorLine(
  text: string,
  options: { format: string; base_iri?: string },
): number | undefined {
  let line = 0;
  function* lines(): Generator<string> {
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf("\n", start);
      const stop = end === -1 ? text.length : end + 1;
      line++;
      yield text.slice(start, stop);
      start = stop;
    }
  }
  try {
    for (const _ of oxigraph.parse(lines(), options)) {
      // Drain: the error surfaces while iterating.
    }
  } catch {
    return line > 0 ? line : undefined;
  }
  return undefined;
}
