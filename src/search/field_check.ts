/**
 * Which fields of a search request no document of the collection has: a filter or sort on
 * such a field is a mistake (a typo, a prefixed name the documents spell otherwise) that
 * would otherwise answer 200 with nothing, or in no order. Engine-neutral: documents are
 * shaped from the data (a predicate's local name becomes a field), so beyond the fields
 * the service and the configuration name, a field is known when some document holds it,
 * which one facet count over the whole index tells, on either engine.
 */
import { DomainError } from "../errors/domain_error.ts";
import { SERVICE_SEARCH_FIELDS } from "../fields/field_names.ts";
import { LABEL_SORT } from "./label_fields.ts";
import type { CollectionIndexRef, SearchEngine, SearchRequest } from "./search_engine.ts";

/**
 * Fields known without asking the engine: the service's own, the collection's configured
 * search fields, its declared mappings and its JSON-LD context's terms.
 */
export function declaredFields(
  index: CollectionIndexRef,
  configured: readonly { name: string }[],
  context: unknown,
): Set<string> {
  const known = new Set<string>([...SERVICE_SEARCH_FIELDS, "_score", LABEL_SORT]);
  for (const field of configured) known.add(field.name);
  const properties = (index.mappings as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  for (const name of Object.keys(properties ?? {})) known.add(name);
  collectTerms(context, known);
  return known;
}

function collectTerms(context: unknown, into: Set<string>): void {
  if (Array.isArray(context)) return context.forEach((one) => collectTerms(one, into));
  if (typeof context !== "object" || context === null) return;
  const record = context as Record<string, unknown>;
  if ("@context" in record) return collectTerms(record["@context"], into);
  for (const term of Object.keys(record)) if (!term.startsWith("@")) into.add(term);
}

/**
 * The fields among `candidates` that no document of the indices holds (a field one of them
 * holds is known to all: a search over several knows what any of them knows); [] when the
 * indices are empty (nothing can be said yet). Dotted paths into nested objects are not
 * checked: a facet counts values, not objects. One search (no hits, one value per facet).
 */
export async function fieldsNoDocumentHolds(
  engine: SearchEngine,
  indices: readonly CollectionIndexRef[],
  candidates: readonly string[],
): Promise<string[]> {
  const fields = [...new Set(candidates)].filter((field) => !field.includes("."));
  if (fields.length === 0) return [];
  const answer = await engine.searchMany(indices, { size: 0, facets: fields, facetSize: 1 });
  if (answer.total === 0) return [];
  return fields.filter((field) => (answer.facets?.[field] ?? []).length === 0);
}

const WHERE_FIELDS_COME_FROM = "Field names come from the collection's context and configured " +
  "fields, or from the local names of the items' predicates (a hit's document shows them).";

/**
 * invalid-input `invalid-sort` for a sort key, or `unknown-field` for a filter, any or range
 * of a search that found nothing (`total` 0), on a field neither `declared` (for any of the
 * searched collections) nor held by any document of the indices: such a search would answer
 * in no order, or with nothing, and say nothing. Called after the search, so a search on
 * declared fields costs nothing more.
 */
export async function refuseUnknownFields(
  engine: SearchEngine,
  indices: readonly CollectionIndexRef[],
  declared: ReadonlySet<string>,
  request: SearchRequest,
  total: number,
): Promise<void> {
  const named = (parameter: string, entries: { field: string }[] | undefined) =>
    (entries ?? []).filter((entry) => !declared.has(entry.field))
      .map((entry) => ({ parameter, field: entry.field }));
  const sorts = named("sort", request.sort);
  const filters = total > 0 ? [] : [
    ...named("filter", request.filters),
    ...named("any", request.anyOf),
    ...named("range", request.ranges),
  ];
  if (sorts.length + filters.length === 0) return;
  const unknown = new Set(
    await fieldsNoDocumentHolds(engine, indices, [...sorts, ...filters].map((one) => one.field)),
  );
  const searched = indices.length === 1 ? "this collection" : "the searched collections";
  const sort = sorts.find((one) => unknown.has(one.field));
  if (sort) {
    throw new DomainError("invalid-sort", {
      detail: `No document of ${searched} has the field "${sort.field}", so nothing can be ` +
        `sorted on it. ${WHERE_FIELDS_COME_FROM}`,
      errors: [{ path: "sort", message: `unknown field ${sort.field}` }],
    });
  }
  const filter = filters.find((one) => unknown.has(one.field));
  if (filter) {
    throw new DomainError("unknown-field", {
      detail: `No document of ${searched} has the field "${filter.field}" ` +
        `(${filter.parameter}=${filter.field}:…). ${WHERE_FIELDS_COME_FROM}`,
      errors: [{ path: filter.parameter, message: `unknown field ${filter.field}` }],
    });
  }
}
