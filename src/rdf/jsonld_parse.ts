/**
 * JSON-LD 1.1 (any form: expanded, compacted, flattened, `@graph`, named graphs) to quads,
 * through `jsonld.toRDF`, without ever touching the network.
 *
 * Remote contexts are resolved only from the configured local copies
 * (`service.jsonld.contexts`); any other URL is refused as invalid input, naming it.
 *
 * Nothing is dropped silently: where the JSON-LD algorithms would drop data with a warning
 * (a relative IRI, a property that expands to no IRI, a free-floating value), the body is
 * refused. jsonld.js 9 misses two errors the JSON-LD 1.1 API defines; they are checked
 * here (see {@link checkTypeRedefinitions} and {@link checkTypedValues}).
 */
// @ts-types="@types/n3"
import { DataFactory, type Quad } from "n3";
import jsonld from "jsonld";
import ContextResolver from "jsonld/lib/ContextResolver.js";
import { DomainError } from "../errors/domain_error.ts";
import { relativeIriProblem } from "./syntax_errors.ts";

import { literal, TagSpellings } from "./language_tags.ts";

const { namedNode, blankNode, defaultGraph, quad: makeQuad } = DataFactory;

const RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const XSD_DOUBLE = "http://www.w3.org/2001/XMLSchema#double";
/** Stands in for xsd:double on string values while jsonld turns them into RDF. */
const DOUBLE_STAND_IN = "urn:x-rdf-content-service:xsd-double-string";

/** Options of {@link parseJsonLd}. */
export interface JsonLdParseOptions {
  /** Context URL → local copy of the document served at that URL. */
  contexts?: Record<string, unknown>;
  /** Base IRI for relative IRIs in the document. */
  baseIri?: string;
}

/** A term as `jsonld.toRDF` returns it. */
interface JsonLdTerm {
  termType: "NamedNode" | "BlankNode" | "Literal" | "DefaultGraph";
  value: string;
  datatype?: { value: string };
  language?: string;
}

interface JsonLdQuad {
  subject: JsonLdTerm;
  predicate: JsonLdTerm;
  object: JsonLdTerm;
  graph: JsonLdTerm;
}

/** A warning as jsonld.js hands it to an event handler. */
interface JsonLdEvent {
  code: string;
  level: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Warnings about a reference that stayed relative: the IRI is in the named detail. */
const RELATIVE_REFERENCE_DETAIL: Record<string, string> = {
  "relative @id reference": "id",
  "relative @type reference": "type",
  "relative @vocab reference": "vocab",
  "relative subject reference": "subject",
  "relative predicate reference": "predicate",
  "relative object reference": "object",
  "relative graph reference": "graph",
};

/**
 * Warnings after which jsonld.js drops data the client sent. (Others, such as an empty
 * object or a node with only `@id`, drop nothing that would have been a triple.)
 */
const DATA_DROPPED: Record<string, string> = {
  "invalid property": "the property does not expand to an absolute IRI (define the term in " +
    "@context or set @vocab)",
  "free-floating scalar": "a value outside any node object has no subject",
  "blank node predicate": "a blank-node property is not RDF",
  "reserved term": "terms that look like keywords (@…) are reserved",
  "reserved @id value": "@id values that look like keywords (@…) are reserved",
  "reserved @reverse value": "@reverse values that look like keywords (@…) are reserved",
  "rdfDirection not set": "@direction has no place in an RDF 1.1 literal",
};

/** invalid-input `invalid-jsonld` with the JSON-LD error code, as the JSON-LD 1.1 API names it. */
function invalidJsonLd(message: string, code?: string): DomainError {
  return new DomainError("invalid-jsonld", {
    detail: code ? `${message} (${code})` : message,
    errors: [{ path: "body", message }],
    extensions: code ? { code } : {},
  });
}

/** Turns the warnings that would lose data into errors, thrown out of jsonld.js. */
function refuseLossyEvent({ event, next }: { event: JsonLdEvent; next: () => void }): void {
  if (event.level !== "warning") return next();
  const detail = RELATIVE_REFERENCE_DETAIL[event.code];
  if (detail !== undefined) {
    const value = event.details?.[detail] ?? event.details?.["value"];
    const iri = typeof value === "string"
      ? value
      : (value as { value?: unknown } | undefined)?.value;
    throw relativeIriProblem("JSON-LD", typeof iri === "string" ? iri : JSON.stringify(value));
  }
  const dropped = DATA_DROPPED[event.code];
  if (dropped !== undefined) {
    const details = event.details ?? {};
    const what = Object.keys(details).length > 0 ? ` ${JSON.stringify(details).slice(0, 200)}` : "";
    throw invalidJsonLd(
      `${event.message}${what}: ${dropped}; nothing is dropped silently.`,
      event.code,
    );
  }
  next();
}

/**
 * JSON-LD 1.1 (Create Term Definition, step 5): `@type` may only be given a term
 * definition holding `@container: @set` and/or `@protected`. jsonld.js also takes `@id`
 * and a definition without `@container`; this is the `keyword redefinition` it misses, as
 * is a context that defines `@context` itself (see `checkContext`).
 * Every context in the document is checked, embedded and scoped ones alike.
 */
function checkTypeRedefinitions(node: unknown): void {
  if (Array.isArray(node)) {
    for (const entry of node) checkTypeRedefinitions(entry);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "@context") checkContext(value);
    checkTypeRedefinitions(value);
  }
}

function checkContext(context: unknown): void {
  for (const entry of Array.isArray(context) ? context : [context]) {
    // JSON-LD 1.1 (Create Term Definition, step 5; W3C test er56): a context that defines
    // `@context` redefines a keyword. jsonld.js reads it as a remote context document
    // (`{"@context": …}`) that was written inline instead, and accepts it.
    if (typeof entry === "object" && entry !== null && "@context" in entry) {
      throw invalidJsonLd(
        "a context may not define @context (keywords cannot be redefined)",
        "keyword redefinition",
      );
    }
    if (typeof entry !== "object" || entry === null || !("@type" in entry)) continue;
    const definition = (entry as Record<string, unknown>)["@type"];
    if (typeof definition !== "object" || definition === null) continue;
    const keys = Object.keys(definition);
    const valid = keys.length > 0 &&
      keys.every((key) => key === "@container" || key === "@protected") &&
      (!("@container" in definition) ||
        (definition as Record<string, unknown>)["@container"] === "@set");
    if (!valid) {
      throw invalidJsonLd(
        "@type may only be redefined with @container: @set and @protected: " +
          JSON.stringify(definition).slice(0, 200),
        "keyword redefinition",
      );
    }
  }
}

/**
 * JSON-LD 1.1 (Expansion, step 15): the `@type` of a value object must be one IRI.
 * jsonld.js also lets through an empty object (a framing wildcard) and an array; this is
 * the `invalid typed value` it misses. Runs on the expanded document.
 */
function checkTypedValues(node: unknown): void {
  if (Array.isArray(node)) {
    for (const entry of node) checkTypedValues(entry);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as Record<string, unknown>;
  if ("@value" in object) {
    const type = object["@type"];
    if (type !== undefined && typeof type !== "string") {
      throw invalidJsonLd(
        `the @type of a value must be one IRI, not ${JSON.stringify(type).slice(0, 200)}`,
        "invalid typed value",
      );
    }
    return;
  }
  for (const value of Object.values(object)) checkTypedValues(value);
}

/** A remote document as jsonld's document loader returns it. */
interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
}

/**
 * A small LRU-less bounded cache for resolved contexts. jsonld's own shared cache is
 * keyed by URL alone and lives for the process, so a context served from one set of local
 * copies would be reused for callers that do not list it; each set gets its own cache.
 */
class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    return this.#entries.get(key);
  }
  set(key: string, value: V): this {
    if (this.#entries.size >= this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, value);
    return this;
  }
}

const NO_CONTEXTS: Record<string, unknown> = Object.freeze({});
const cachesByContexts = new WeakMap<object, BoundedCache<unknown>>();

function contextCache(contexts: Record<string, unknown>): BoundedCache<unknown> {
  let cache = cachesByContexts.get(contexts);
  if (!cache) {
    cache = new BoundedCache(100);
    cachesByContexts.set(contexts, cache);
  }
  return cache;
}

/**
 * A document loader that serves local copies and refuses everything else. Refusals are
 * also pushed to `refusals`: jsonld.js wraps some loader errors (scoped contexts) without
 * keeping the cause.
 */
function localDocumentLoader(contexts: Record<string, unknown>, refusals: DomainError[]) {
  // deno-lint-ignore require-await -- jsonld expects a promise-returning loader
  return async (url: string): Promise<RemoteDocument> => {
    if (!Object.hasOwn(contexts, url)) {
      const refusal = new DomainError("remote-context-refused", {
        detail: `The JSON-LD context ${url} is not fetched: only contexts configured in ` +
          "service.jsonld.contexts with a local copy are used.",
        errors: [{ path: "@context", message: `remote context not allowed: ${url}` }],
        extensions: { url },
      });
      refusals.push(refusal);
      throw refusal;
    }
    let document = contexts[url];
    if (typeof document === "string") document = JSON.parse(document);
    // A local copy written as the bare context object is accepted too.
    if (typeof document === "object" && document !== null && !("@context" in document)) {
      document = { "@context": document };
    }
    checkTypeRedefinitions(document);
    return { contextUrl: null, documentUrl: url, document };
  };
}

/** The DomainError a failure was caused by, when our document loader threw it. */
function problemCause(error: unknown): DomainError | undefined {
  for (let current = error, depth = 0; current && depth < 10; depth++) {
    if (current instanceof DomainError) return current;
    const candidate = current as { cause?: unknown; details?: { cause?: unknown } };
    current = candidate.details?.cause ?? candidate.cause;
  }
  return undefined;
}

function toN3Term(term: JsonLdTerm) {
  switch (term.termType) {
    case "NamedNode":
      return namedNode(term.value);
    case "BlankNode":
      return blankNode(term.value);
    case "DefaultGraph":
      return defaultGraph();
    case "Literal": {
      let datatype = term.datatype?.value ?? XSD_STRING;
      if (datatype === DOUBLE_STAND_IN) datatype = XSD_DOUBLE;
      if (term.language) return literal(term.value, term.language);
      return literal(term.value, datatype === RDF_LANG_STRING ? undefined : namedNode(datatype));
    }
  }
}

/** Distinguishes the blank nodes of separate documents that end up in one graph. */
let documentCounter = 0;

/**
 * jsonld.js rewrites every xsd:double value into canonical form, strings included
 * (`"-INF"` becomes `"NaN"`, `"1.5e3"` becomes `"1.5E3"`); JSON-LD 1.1 only asks that of
 * JSON numbers. String values are hidden behind a stand-in datatype until the quads are
 * built, so the literal the client sent is the literal stored.
 */
function protectDoubleStrings(node: unknown): void {
  if (Array.isArray(node)) {
    for (const entry of node) protectDoubleStrings(entry);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as Record<string, unknown>;
  if ("@value" in object) {
    if (typeof object["@value"] === "string" && object["@type"] === XSD_DOUBLE) {
      object["@type"] = DOUBLE_STAND_IN;
    }
    return;
  }
  for (const value of Object.values(object)) protectDoubleStrings(value);
}

/**
 * Converts a parsed JSON-LD document to n3 quads, running `jsonld.toRDF` once.
 *
 * Errors: invalid-input `remote-context-refused` for a context URL without a local copy; invalid-input
 * `relative-iri` for an IRI that stays relative (no `baseIri`, no @base); invalid-input
 * `invalid-jsonld` with the JSON-LD error code for anything the JSON-LD 1.1 API calls an
 * error, and for data its algorithms would drop (a property that expands to no IRI).
 * Blank nodes are renamed per document (`j<n>_b<i>`).
 */
export async function parseJsonLd(doc: unknown, options: JsonLdParseOptions = {}): Promise<Quad[]> {
  const contexts = options.contexts ?? NO_CONTEXTS;
  if (typeof doc !== "object" || doc === null) {
    // jsonld.js would take a string for the URL of a document to load.
    throw new DomainError("invalid-jsonld", {
      detail: `A JSON-LD document is a JSON object or array; got ${
        doc === null ? "null" : typeof doc
      }.`,
      errors: [{ path: "body", message: "object or array expected" }],
    });
  }
  const refusals: DomainError[] = [];
  let dataset: JsonLdQuad[];
  try {
    checkTypeRedefinitions(doc);
    const jsonldOptions = {
      base: options.baseIri ?? null,
      eventHandler: refuseLossyEvent,
      documentLoader: localDocumentLoader(contexts, refusals),
      contextResolver: new ContextResolver({ sharedCache: contextCache(contexts) }),
    };
    // Expansion is the first step of toRDF anyway: doing it here costs nothing extra.
    const expanded = await jsonld.expand(doc as object, jsonldOptions);
    checkTypedValues(expanded);
    protectDoubleStrings(expanded);
    dataset = await jsonld.toRDF(expanded, {
      ...jsonldOptions,
      skipExpansion: true,
    }) as JsonLdQuad[];
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const refused = problemCause(error) ?? refusals[0];
    if (refused) throw refused;
    if (error instanceof RangeError) {
      // jsonld.js recurses once per level of nesting: a hostile depth exhausts the stack,
      // which is the client's input, not the service, failing.
      throw new DomainError("invalid-jsonld", {
        detail: "The JSON-LD document is nested too deeply to be processed.",
        errors: [{ path: "body", message: "nested too deeply" }],
      });
    }
    const message = error instanceof Error ? error.message : String(error);
    throw invalidJsonLd(message, (error as { details?: { code?: string } }).details?.code);
  }
  const prefix = `j${documentCounter++}_`;
  const relabel = (term: JsonLdTerm): JsonLdTerm =>
    term.termType === "BlankNode" ? { ...term, value: `${prefix}${term.value}` } : term;
  const spellings = writtenTags([doc, ...Object.values(contexts)]);
  return dataset.map((q) =>
    makeQuad(
      toN3Term(relabel(q.subject)) as Quad["subject"],
      toN3Term(q.predicate) as Quad["predicate"],
      spellings.restoreTerm(toN3Term(relabel(q.object)) as Quad["object"]),
      toN3Term(relabel(q.graph)) as Quad["graph"],
    )
  );
}

/** A language tag as a JSON-LD document may write one (a language map's key too). */
const TAG = /^[a-zA-Z]+(?:-[a-zA-Z0-9]+)*$/;

/**
 * The language tags of JSON-LD documents as written. jsonld.js lower-cases every tag it
 * expands (`@language` values, a context's default, language map keys); the tags given back
 * to its literals are the documents' own: `@language` values and the keys that look like a
 * tag (a language map's), read without recursion (a document may be nested deep).
 */
function writtenTags(documents: unknown[]): TagSpellings {
  const spellings = new TagSpellings();
  const pending = [...documents];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      // One by one: a spread of a long array would overflow the call's arguments.
      for (const member of value) pending.push(member);
      continue;
    }
    for (const [key, member] of Object.entries(value)) {
      if (key === "@language" && typeof member === "string") spellings.note(member);
      else if (TAG.test(key)) spellings.note(key);
      pending.push(member);
    }
  }
  return spellings;
}
