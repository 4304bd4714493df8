/**
 * The OpenSearch layout of a search document: where each logical field (`documents.ts`) is
 * kept in the index, and the way back.
 *
 * A property's values are IRIs and literals (scalars) or blank nodes (nested objects), and
 * one property may give both: SKOS states `rdfs:range` as an IRI on most properties and as an
 * `owl:unionOf` blank node on `skos:member`; in OWL `rdfs:subClassOf` is an IRI here and an
 * `owl:Restriction` there. A field of OpenSearch's mapping is either a value or an object, so
 * the second shape it meets fails the document (mapper_parsing_exception). Here a property's
 * scalar values keep its name and its object values go under a sibling named
 * `<field>@node`, at every depth: logical `{range: ["skos:Concept", {unionOf: …}]}` is
 * physical `{range: ["skos:Concept"], "range@node": [{…}]}`, and the logical path
 * `range.unionOf.first` is `range@node.unionOf@node.first`. `@` is no character a predicate's
 * local name keeps (`documents.ts` replaces it); a context term may still end in `@node`, so
 * a name ending in `@node` and any number of `@` gets one more `@` (`x@node` → `x@node@`):
 * no value's name ends in `@node`, and every name comes back (the embedded engine,
 * schemaless, needs none of this and keeps the logical document as it is).
 *
 * Scalars keep their names so that the common case is untouched (`genre`, `genre.keyword` in
 * the query DSL); objects move always, not only when a field is mixed, because which shape
 * an index meets first decides its mapping. The service's own fields (`sortLabel`, an object
 * of the service) keep their layout.
 *
 * Everything that names a field on OpenSearch goes through here: writes (bulk_writes.ts),
 * filters, `any`, ranges, sorts and facets (mappings.ts' resolver, multi_index.ts), declared
 * `mappings` (mappings.ts), and hits read back (search_body.ts, layout_upgrade.ts), which
 * show the logical document. Raw query DSL bodies (`POST /api/search`) speak the physical
 * layout: they are OpenSearch's own language over the index as it is.
 */
import { SERVICE_SEARCH_FIELDS } from "../fields/field_names.ts";
import type { SearchDocument, SearchFieldValue } from "../search/search_engine.ts";

/** Appended to a field's name for its object (blank node) values. */
export const OBJECT_SUFFIX = "@node";

const SERVICE_FIELDS = new Set(SERVICE_SEARCH_FIELDS);

type Fields = Record<string, SearchFieldValue>;

function isObject(value: SearchFieldValue): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Names that could be read as an object sibling: `…@node`, `…@node@`, … */
const SIBLING_LIKE = /@node@*$/;

/** A logical name as the physical layout spells it (see above); most stay as they are. */
function escape(field: string): string {
  return SIBLING_LIKE.test(field) ? `${field}@` : field;
}

/** {@link escape} undone. */
function unescape(field: string): string {
  return field.endsWith("@") && SIBLING_LIKE.test(field) ? field.slice(0, -1) : field;
}

/**
 * The physical path of a logical dotted path: every step into an object is a step into its
 * object sibling (`author.name` → `author@node.name`); a top-level service field is kept.
 */
export function physicalPath(path: string): string {
  const steps = path.split(".");
  if (SERVICE_FIELDS.has(steps[0])) return path;
  return steps.map((step, n) => escape(step) + (n < steps.length - 1 ? OBJECT_SUFFIX : ""))
    .join(".");
}

/** The document as OpenSearch indexes it. */
export function physicalDocument(document: SearchDocument): Record<string, unknown> {
  const physical: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(document)) {
    if (SERVICE_FIELDS.has(field)) physical[field] = value;
    else splitField(escape(field), value, physical);
  }
  return physical;
}

/** A logical object's fields, each split into its scalar and object parts. */
function physicalObject(node: Fields): Fields {
  const physical: Fields = {};
  for (const [field, value] of Object.entries(node)) splitField(escape(field), value, physical);
  return physical;
}

/** One field's values under its (escaped) name and its object sibling. */
function splitField(name: string, value: SearchFieldValue, into: Record<string, unknown>): void {
  if (isObject(value)) {
    into[name + OBJECT_SUFFIX] = physicalObject(value);
    return;
  }
  if (!Array.isArray(value) || !value.some(isObject)) {
    into[name] = value;
    return;
  }
  const scalars = value.filter((one) => !isObject(one));
  const objects = (value.filter(isObject) as Fields[]).map(physicalObject);
  if (scalars.length > 0) into[name] = scalars;
  into[name + OBJECT_SUFFIX] = objects;
}

/**
 * The logical document of a hit's `_source`: each object sibling joined to its field again,
 * scalars first, as `documents.ts` orders them (a document it built comes back equal). A
 * source without siblings (an index of an earlier layout) is already logical.
 */
export function logicalDocument(source: Record<string, unknown>): SearchDocument {
  // Objects live only under siblings: a source without one is the document (most are).
  if (!needsJoin(source)) return source as SearchDocument;
  const logical: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(source)) {
    if (SERVICE_FIELDS.has(field)) logical[field] = value;
    else joinField(field, value as SearchFieldValue, source, logical);
  }
  return logical as SearchDocument;
}

/** Whether a physical object holds a sibling or an escaped name (both end in `e` or `@`). */
function needsJoin(node: Record<string, unknown>): boolean {
  for (const field in node) if (field.endsWith(OBJECT_SUFFIX) || field.endsWith("@")) return true;
  return false;
}

function logicalObject(node: Fields): Fields {
  if (!needsJoin(node)) return node;
  const logical: Fields = {};
  for (const [field, value] of Object.entries(node)) joinField(field, value, node, logical);
  return logical;
}

function joinField(
  field: string,
  value: SearchFieldValue,
  from: Record<string, unknown>,
  into: Record<string, unknown>,
): void {
  if (!field.endsWith(OBJECT_SUFFIX)) {
    // A field with object values too is written when its sibling is met.
    if (!(field + OBJECT_SUFFIX in from)) into[unescape(field)] = value;
    return;
  }
  const name = field.slice(0, -OBJECT_SUFFIX.length);
  const objects = Array.isArray(value)
    ? value.map((one) => logicalObject(one as Fields))
    : logicalObject(value as Fields);
  const scalars = from[name] as SearchFieldValue | undefined;
  into[unescape(name)] = scalars === undefined ? objects : [scalars, objects].flat();
}

/**
 * A collection's declared `mappings.properties` in the physical layout: an object mapping
 * (one with `properties`, or of type `object` or `nested`) moves to its field's object
 * sibling, at every depth; value mappings keep their names.
 */
export function physicalProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const physical: Record<string, unknown> = {};
  for (const [field, mapping] of Object.entries(properties)) {
    if (SERVICE_FIELDS.has(field)) {
      physical[field] = mapping;
    } else if (!isObjectMapping(mapping)) {
      physical[escape(field)] = mapping;
    } else {
      const { properties: inner, ...rest } = mapping as Record<string, unknown>;
      physical[escape(field) + OBJECT_SUFFIX] = inner === undefined || typeof inner !== "object"
        ? rest
        : { ...rest, properties: physicalProperties(inner as Record<string, unknown>) };
    }
  }
  return physical;
}

function isObjectMapping(mapping: unknown): boolean {
  if (typeof mapping !== "object" || mapping === null) return false;
  const { type, properties } = mapping as { type?: unknown; properties?: unknown };
  return type === "object" || type === "nested" || (type === undefined && properties !== undefined);
}
