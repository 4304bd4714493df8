/**
 * Item graph → search document.
 *
 * The item's graph compacted around the item in the shape of compacted JSON-LD: the item's
 * properties under short field names, blank nodes as nested objects, several values as a
 * sorted array. Field names come from the collection's JSON-LD `context` when it names the
 * predicate (a term, a `@vocab` suffix or a `prefix:suffix` CURIE), otherwise from the
 * predicate's local name. Names that clash with each other or with the service's own fields
 * get a suffix naming their namespace. The same graph always gives the same document,
 * whatever the triple order or blank node labels. `text` holds every literal;
 * `text_<language>` the literals tagged with a search language (`languages.ts`), which the
 * engines analyse in that language; `labels` and `sortLabel` the item's labels
 * (`label_fields.ts`).
 */
import type { BlankNode, Literal, NamedNode, Quad, Term } from "n3";
import type { SearchDocument, SearchFieldValue } from "./search_engine.ts";
import { languageTextField, searchLanguageOf } from "../fields/languages.ts";
import { LINKED_ITEMS_FIELD, SERVICE_SEARCH_FIELDS } from "../fields/field_names.ts";
import { itemLabels, labelFields } from "./label_fields.ts";

/** What the index needs to know about one item. */
export interface SearchItem {
  uri: string;
  collection: string;
  workspace: string;
  hash: string;
  modified: string;
  /** The item's graph (default graph). */
  quads: Quad[];
}

/** How a collection shapes its documents. */
export interface SearchDocumentOptions {
  /** The collection's JSON-LD context: an object, an array of them, or `{"@context": …}`. */
  context?: Record<string, unknown> | Record<string, unknown>[];
  /**
   * The collection's own search fields for this item (`index.fields`): they replace a
   * generated field of the same name; their text values are searched by `q` like the item's
   * literals (and in their language); `linkedItems` lists the resources they read.
   */
  mapped?: {
    fields: Record<string, SearchFieldValue>;
    texts: { text: string; language?: string }[];
    linkedItems: string[];
  };
  /**
   * The collection's language (customer.yml `language`): untagged string literals are also
   * analysed in it, as if tagged so.
   */
  defaultLanguage?: string;
}

const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const XSD_STRING = `${XSD}string`;
const INTEGER_TYPES = new Set(
  [
    "integer",
    "int",
    "long",
    "short",
    "byte",
    "nonNegativeInteger",
    "positiveInteger",
    "negativeInteger",
    "nonPositiveInteger",
    "unsignedLong",
    "unsignedInt",
    "unsignedShort",
    "unsignedByte",
  ].map((name) => XSD + name),
);
const DECIMAL_TYPES = new Set(["decimal", "double", "float"].map((name) => XSD + name));

/** Readable suffixes for namespaces whose local names often clash. */
const KNOWN_PREFIXES: Record<string, string> = {
  "http://purl.org/dc/terms/": "dcterms",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://xmlns.com/foaf/0.1/": "foaf",
  "http://schema.org/": "schema",
  "https://schema.org/": "schema",
  "http://www.w3.org/2000/01/rdf-schema#": "rdfs",
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
  "http://www.w3.org/2002/07/owl#": "owl",
  "http://www.w3.org/2004/02/skos/core#": "skos",
  "http://www.w3.org/ns/dcat#": "dcat",
  "http://www.w3.org/ns/prov#": "prov",
  "http://www.w3.org/2006/vcard/ns#": "vcard",
};

/** Builds the search document of one item. */
export function buildSearchDocument(
  item: SearchItem,
  options: SearchDocumentOptions = {},
): SearchDocument {
  const bySubject = new Map<string, Quad[]>();
  const predicates = new Set<string>();
  const literals = new Set<string>();
  const byLanguage = new Map<string, Set<string>>();
  for (const quad of item.quads) {
    const key = termKey(quad.subject);
    const list = bySubject.get(key);
    if (list) list.push(quad);
    else bySubject.set(key, [quad]);
    if (quad.predicate.value !== RDF_TYPE) predicates.add(quad.predicate.value);
    if (quad.object.termType === "Literal") {
      literals.add(quad.object.value);
      const literal = quad.object as Literal;
      const language = searchLanguageOf(literal.language) ??
        (literal.language === "" && literal.datatype.value === XSD_STRING
          ? options.defaultLanguage
          : undefined);
      if (language) {
        const tagged = byLanguage.get(language);
        if (tagged) tagged.add(quad.object.value);
        else byLanguage.set(language, new Set([quad.object.value]));
      }
    }
  }
  for (const { text, language: own } of options.mapped?.texts ?? []) {
    const language = own ?? options.defaultLanguage;
    literals.add(text);
    if (language) {
      const tagged = byLanguage.get(language);
      if (tagged) tagged.add(text);
      else byLanguage.set(language, new Set([text]));
    }
  }
  const names = cachedFieldNames([...predicates], options.context);
  const describe = (subject: string, visiting: Set<string>) =>
    describeNode(bySubject.get(subject) ?? [], names, bySubject, visiting);

  const properties = describe(`<${item.uri}>`, new Set([`<${item.uri}>`]));
  const types = properties.types;
  delete properties.types;
  return {
    uri: item.uri,
    collection: item.collection,
    workspace: item.workspace,
    types: Array.isArray(types) ? types as string[] : types === undefined ? [] : [types as string],
    hash: item.hash,
    modified: item.modified,
    ...properties,
    ...options.mapped?.fields,
    ...(options.mapped?.linkedItems.length
      ? { [LINKED_ITEMS_FIELD]: options.mapped.linkedItems }
      : {}),
    text: [...literals].sort(compareStrings).join("\n"),
    // The item's labels: weighed above the rest of `text` by `q`, sorted on by `sort=label`.
    ...labelFields(itemLabels(item.uri, item.quads)),
    // Literals tagged with a search language, analysed in that language as well.
    ...Object.fromEntries(
      [...byLanguage.keys()].sort(compareStrings).map((language) => [
        languageTextField(language),
        [...byLanguage.get(language)!].sort(compareStrings).join("\n"),
      ]),
    ),
  };
}

/** Distinct predicate sets remembered per context; items of a collection share a few. */
const FIELD_NAME_CACHE_SIZE = 512;
const fieldNameCaches = new WeakMap<object, Map<string, Map<string, string>>>();
const NO_CONTEXT = {};

/** {@link searchFieldNames}, remembered per context and predicate set (it is pure). */
function cachedFieldNames(
  predicates: string[],
  context?: SearchDocumentOptions["context"],
): Map<string, string> {
  let cache = fieldNameCaches.get(context ?? NO_CONTEXT);
  if (!cache) fieldNameCaches.set(context ?? NO_CONTEXT, cache = new Map());
  const key = predicates.sort(compareStrings).join("\n");
  let names = cache.get(key);
  if (!names) {
    if (cache.size >= FIELD_NAME_CACHE_SIZE) cache.clear();
    cache.set(key, names = searchFieldNames(predicates, context));
  }
  return names;
}

/**
 * The field name of each predicate IRI: from the context if it names the predicate, else the
 * local name; clashing or reserved names get `_<namespace token>` (and a hash if needed).
 */
export function searchFieldNames(
  predicates: string[],
  context?: SearchDocumentOptions["context"],
): Map<string, string> {
  const compactor = context === undefined ? undefined : contextCompactor(context);
  const preferred = new Map<string, string[]>();
  for (const predicate of [...new Set(predicates)].sort(compareStrings)) {
    const name = compactor?.(predicate) ?? localName(predicate);
    const group = preferred.get(name);
    if (group) group.push(predicate);
    else preferred.set(name, [predicate]);
  }
  const names = new Map<string, string>();
  const taken = new Set<string>(SERVICE_SEARCH_FIELDS);
  for (const [name, group] of preferred) {
    if (group.length === 1 && !taken.has(name)) {
      names.set(group[0], name);
      taken.add(name);
    }
  }
  for (const [name, group] of preferred) {
    if (group.length === 1 && names.has(group[0])) continue;
    for (const predicate of group) {
      let candidate = `${name}_${namespaceToken(predicate)}`;
      if (taken.has(candidate)) candidate = `${candidate}_${fnv1a(predicate)}`;
      names.set(predicate, candidate);
      taken.add(candidate);
    }
  }
  return names;
}

function describeNode(
  quads: Quad[],
  names: Map<string, string>,
  bySubject: Map<string, Quad[]>,
  visiting: Set<string>,
): Record<string, SearchFieldValue> {
  const values = new Map<string, SearchFieldValue[]>();
  for (const quad of quads) {
    const field = quad.predicate.value === RDF_TYPE ? "types" : names.get(quad.predicate.value)!;
    const value = fieldValue(quad.object, field === "types", names, bySubject, visiting);
    if (value === undefined) continue;
    const list = values.get(field);
    if (list) list.push(value);
    else values.set(field, [value]);
  }
  const node: Record<string, SearchFieldValue> = {};
  for (const field of [...values.keys()].sort(compareStrings)) {
    const list = dedupeSorted(values.get(field)!);
    node[field] = list.length === 1 && field !== "types" ? list[0] : list;
  }
  return node;
}

function fieldValue(
  object: Term,
  isType: boolean,
  names: Map<string, string>,
  bySubject: Map<string, Quad[]>,
  visiting: Set<string>,
): SearchFieldValue | undefined {
  if (isType) return object.termType === "NamedNode" ? object.value : undefined;
  if (object.termType === "Literal") return literalValue(object as Literal);
  if (object.termType === "NamedNode") return object.value;
  if (object.termType !== "BlankNode") return undefined;
  const key = termKey(object as BlankNode);
  // A blank node cycle has no tree shape; its literals are still in `text`.
  if (visiting.has(key)) return undefined;
  visiting.add(key);
  const nested = describeNode(bySubject.get(key) ?? [], names, bySubject, visiting);
  visiting.delete(key);
  return nested;
}

function literalValue(literal: Literal): SearchFieldValue {
  const datatype = literal.datatype?.value ?? "";
  const lexical = literal.value;
  if (INTEGER_TYPES.has(datatype)) {
    const number = Number(lexical.trim());
    if (Number.isSafeInteger(number)) return number;
  } else if (DECIMAL_TYPES.has(datatype)) {
    const number = Number(lexical.trim());
    if (Number.isFinite(number) && lexical.trim() !== "") return number;
  } else if (datatype === `${XSD}boolean`) {
    const trimmed = lexical.trim();
    if (trimmed === "true" || trimmed === "1") return true;
    if (trimmed === "false" || trimmed === "0") return false;
  }
  return lexical;
}

function dedupeSorted(values: SearchFieldValue[]): SearchFieldValue[] {
  if (values.length === 1) return values;
  const byKey = new Map<string, SearchFieldValue>();
  for (const value of values) byKey.set(JSON.stringify(value), value);
  return [...byKey.keys()].sort(compareStrings).map((key) => byKey.get(key)!);
}

function termKey(term: Term): string {
  return term.termType === "NamedNode" ? `<${(term as NamedNode).value}>` : `_:${term.value}`;
}

/** Splits an IRI after its last `#`, `/` or `:` (ignoring trailing ones) into namespace and local name. */
function splitIri(iri: string): [namespace: string, local: string] {
  const trimmed = iri.replace(/[#/:]+$/, "");
  const cut = Math.max(
    trimmed.lastIndexOf("#"),
    trimmed.lastIndexOf("/"),
    trimmed.lastIndexOf(":"),
  );
  return [iri.slice(0, cut + 1), trimmed.slice(cut + 1)];
}

function localName(iri: string): string {
  return safeFieldName(splitIri(iri)[1]);
}

/** Dots would read as object paths and a leading `_` as an OpenSearch metadata field. */
function safeFieldName(name: string): string {
  const safe = name.replace(/[^\p{L}\p{N}_-]+/gu, "_").replace(/^[_-]+/, "");
  return safe === "" ? "field" : safe;
}

function namespaceToken(predicate: string): string {
  const namespace = splitIri(predicate)[0];
  const known = KNOWN_PREFIXES[namespace];
  if (known) return known;
  const segments = namespace.replace(/^[a-z][a-z0-9+.-]*:\/*/i, "").split(/[^\p{L}\p{N}]+/u)
    .filter((segment) => segment !== "" && !/^\d+$/.test(segment) && segment !== "www");
  return safeFieldName(segments.at(-1) ?? fnv1a(namespace));
}

/** Six hex digits of FNV-1a: a short, stable tie-breaker. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0").slice(0, 6);
}

/**
 * A predicate IRI → term function from a JSON-LD context: exact term definitions first
 * (the shortest, then alphabetically first term wins), then `prefix:suffix` CURIEs (longest
 * prefix), then `@vocab` suffixes. Remote contexts (strings) and value-specific term
 * selection (`@type`, `@language`, `@container`) are not considered.
 */
function contextCompactor(
  context: NonNullable<SearchDocumentOptions["context"]>,
): (iri: string) => string | undefined {
  const definitions: Record<string, unknown> = {};
  for (const part of contextParts(context)) Object.assign(definitions, part);
  const vocab = typeof definitions["@vocab"] === "string" ? definitions["@vocab"] : undefined;
  const rawIris = new Map<string, string>();
  for (const [term, definition] of Object.entries(definitions)) {
    if (term.startsWith("@")) continue;
    const id = typeof definition === "string"
      ? definition
      : (definition as Record<string, unknown> | null)?.["@id"];
    if (typeof id === "string") rawIris.set(term, id);
  }
  const expand = (value: string): string => {
    const colon = value.indexOf(":");
    if (colon > 0 && !value.slice(colon + 1).startsWith("//")) {
      const prefix = rawIris.get(value.slice(0, colon));
      if (prefix !== undefined) return prefix + value.slice(colon + 1);
    }
    return value;
  };
  const termsByIri = new Map<string, string>();
  const prefixes: [string, string][] = [];
  const byPreference = [...rawIris.keys()].sort((a, b) =>
    a.length - b.length || compareStrings(a, b)
  );
  for (const term of byPreference) {
    const iri = expand(rawIris.get(term)!);
    if (!termsByIri.has(iri)) termsByIri.set(iri, term);
    if (/[/#:?@[\]]$/.test(iri) && !term.includes(":")) prefixes.push([term, iri]);
  }
  prefixes.sort((a, b) => b[1].length - a[1].length);
  return (iri) => {
    const term = termsByIri.get(iri);
    if (term !== undefined) return term;
    for (const [prefix, namespace] of prefixes) {
      if (iri.startsWith(namespace) && iri.length > namespace.length) {
        return `${prefix}:${iri.slice(namespace.length)}`;
      }
    }
    if (vocab && iri.startsWith(vocab) && iri.length > vocab.length) {
      return iri.slice(vocab.length);
    }
    return undefined;
  };
}

function contextParts(context: unknown): Record<string, unknown>[] {
  if (Array.isArray(context)) return context.flatMap(contextParts);
  if (typeof context !== "object" || context === null) return [];
  const wrapped = (context as Record<string, unknown>)["@context"];
  return wrapped === undefined ? [context as Record<string, unknown>] : contextParts(wrapped);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
