/**
 * Prefixed names (`rdfs:Class`, `schema:Person`) where a search takes an IRI: the values of
 * `filter`/`any` on the fields that hold IRIs. The prefixes are the ones the service knows
 * for the collection: the well-known ones and its JSON-LD context's (`prefixesOf`).
 */
import type { SearchFilter } from "./search_engine.ts";

/** The service's own fields whose values are IRIs. */
export const IRI_FIELDS: ReadonlySet<string> = new Set(["uri", "types", "linkedItems"]);

/**
 * `prefix:local` → the full IRI when `prefix` is one of `prefixes`; any other text as it is
 * (an absolute IRI's scheme is no prefix: `http`, `urn`, `https` are not defined).
 */
export function expandPrefixedName(
  value: string,
  prefixes: Readonly<Record<string, string>>,
): string {
  const colon = value.indexOf(":");
  if (colon <= 0) return value;
  const prefix = value.slice(0, colon);
  const local = value.slice(colon + 1);
  if (local.startsWith("//") || !Object.hasOwn(prefixes, prefix)) return value;
  return prefixes[prefix] + local;
}

/** A filter on an IRI field with its value expanded; other filters unchanged. */
export function expandFilter(
  filter: SearchFilter,
  prefixes: Readonly<Record<string, string>>,
): SearchFilter {
  if (!IRI_FIELDS.has(filter.field)) return filter;
  return { field: filter.field, value: expandPrefixedName(filter.value, prefixes) };
}
