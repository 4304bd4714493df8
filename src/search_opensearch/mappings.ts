/**
 * Index settings and mappings of the collections' search indices.
 *
 * By default every string is both full-text (`text`) and exact (`<field>.keyword`), the
 * service's own fields are exact (`keyword`), `modified` is a date, and `text_<language>`
 * is analysed in its language. A collection's
 * `mappings` are merged over the defaults, but cannot retype the service's own fields:
 * paging and removal depend on them.
 */
import { DomainError } from "../errors/domain_error.ts";
import { analyzerOf, languageTextField, SEARCH_LANGUAGES } from "../fields/languages.ts";
import type { WindowLimits } from "../search/clamp.ts";
import { KEYWORD_IGNORE_ABOVE } from "../search/mapped_fields.ts";
import { LABELS_FIELD, SORT_LABEL_FIELD } from "../fields/field_names.ts";
import { asObject, fitsType, SERVICE_FIELD_TYPES } from "../search/declared_mappings.ts";
import { physicalPath, physicalProperties } from "./physical_fields.ts";
import type {
  SearchAnyFilter,
  SearchFilter,
  SearchRange,
  SearchSort,
} from "../search/search_engine.ts";

/**
 * The layout of the service's indices, in the mappings' `_meta`: 1 (none written) analysed
 * `text` without folding and had no label fields; 2 folds `text` and `labels` to ASCII
 * (`datova` finds `datová`) and maps the label sort keys; 3 keeps a field's object (blank
 * node) values under `<field>@node`, apart from its scalar values (`physical_fields.ts`), so
 * a field that is an IRI in one document and a blank node in another is indexed. An index
 * of an older layout is copied into one of this layout when the engine first meets it
 * (`layout_upgrade.ts`).
 */
export const INDEX_LAYOUT = 3;

/** The first layout whose sources are physical documents (`physical_fields.ts`). */
export const OBJECT_SIBLINGS_LAYOUT = 3;

/** Words in lower case without diacritics (the analysis-common module's `asciifolding`). */
const FOLDED_ANALYZER = "folded";

const SERVICE_FIELD_MAPPINGS: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(
    Object.entries(SERVICE_FIELD_TYPES).map(([field, type]) => [field, { type }]),
  ),
  text: { type: "text", analyzer: FOLDED_ANALYZER },
  [LABELS_FIELD]: { type: "text", analyzer: FOLDED_ANALYZER },
  // Already folded by the service (label_fields.ts): sorted as they are.
  [SORT_LABEL_FIELD]: {
    properties: Object.fromEntries(
      ["any", ...SEARCH_LANGUAGES].map((key) => [key, { type: "keyword" }]),
    ),
  },
  // Literals tagged with a language, analysed in it (the analysis-common module's analyzers).
  ...Object.fromEntries(
    SEARCH_LANGUAGES.map((language) => [
      languageTextField(language),
      { type: "text", analyzer: analyzerOf(language) },
    ]),
  ),
};

/**
 * The body of a create-index request: settings sized to the limits (so that clamped queries
 * are never refused by the engine's own window checks) and the merged mappings.
 */
export function indexCreationBody(
  limits: WindowLimits,
  overrides?: Record<string, unknown>,
): { settings: Record<string, unknown>; mappings: Record<string, unknown> } {
  return {
    settings: {
      index: {
        max_result_window: Math.max(10000, limits.maxWindow),
        max_inner_result_window: Math.max(100, limits.maxResultsLimit),
        analysis: {
          analyzer: {
            [FOLDED_ANALYZER]: {
              type: "custom",
              tokenizer: "standard",
              filter: ["lowercase", "asciifolding"],
            },
          },
        },
      },
    },
    mappings: mergedMappings(overrides),
  };
}

/**
 * Default mappings with a collection's `mappings` merged over them; its properties are named
 * as the documents' logical fields and moved to the physical layout (`physical_fields.ts`).
 */
export function mergedMappings(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const overrideProperties = physicalProperties(asObject(overrides.properties));
  const overrideTemplates = Array.isArray(overrides.dynamic_templates)
    ? overrides.dynamic_templates
    : [];
  return {
    // Strings that look like dates stay strings: a later non-date value must not fail.
    date_detection: false,
    ...overrides,
    _meta: { layout: INDEX_LAYOUT },
    dynamic_templates: [
      ...overrideTemplates,
      {
        strings_as_text_and_keyword: {
          match_mapping_type: "string",
          mapping: {
            type: "text",
            fields: { keyword: { type: "keyword", ignore_above: KEYWORD_IGNORE_ABOVE } },
          },
        },
      },
    ],
    properties: { ...overrideProperties, ...SERVICE_FIELD_MAPPINGS },
  };
}

/** How OpenSearch maps one field, as `_mapping/field` reports it. */
interface FieldMapping {
  type?: string;
  fields?: Record<string, { type?: string }>;
}

/**
 * Turns filters and sort keys into query DSL that respects how each field is mapped. Fields
 * are given as logical paths (`author.name`); the clauses name them in the physical layout.
 */
export interface FieldResolver {
  /** An exact-match clause; a value the field's type cannot hold matches nothing. */
  filter(filter: SearchFilter): Record<string, unknown>;
  /** One of several exact values; values the field's type cannot hold match nothing. */
  anyOf(filter: SearchAnyFilter): Record<string, unknown>;
  /** An inclusive range: numbers on number fields, dates on date fields, keywords lexically. */
  range(range: SearchRange): Record<string, unknown>;
  /** A sort clause: strings sort on their keyword, missing values last. */
  sort(sort: SearchSort): Record<string, unknown>;
  /**
   * The field a `terms` aggregation counts for facet `field` (strings: their keyword), or
   * undefined when no document maps it (the facet is then empty).
   */
  facetField(field: string): string | undefined;
}

/**
 * A {@link FieldResolver} over a `_mapping/field` answer (`{field: {full_name, mapping}}`,
 * merged over the physical indices, asked for the {@link physicalPath}s). Unmapped fields are
 * treated as keywords: no document has them, so filters match nothing and sorts leave the
 * order to the URI.
 */
export function fieldResolver(fieldMappings: Record<string, unknown>): FieldResolver {
  const mappingOf = (field: string): FieldMapping | undefined => {
    const entry = asObject(fieldMappings[field]);
    const leaf = Object.values(asObject(entry.mapping))[0];
    return leaf === undefined ? undefined : asObject(leaf) as FieldMapping;
  };
  /**
   * Where a logical path is indexed: its physical path; an index of an earlier layout not yet
   * upgraded (`layout_upgrade.ts`) maps a nested path as it is, and is searched there.
   */
  const locate = (logical: string): [string, FieldMapping | undefined] => {
    const field = physicalPath(logical);
    const mapping = mappingOf(field);
    if (mapping !== undefined || field === logical) return [field, mapping];
    const earlier = mappingOf(logical);
    return earlier === undefined ? [field, undefined] : [logical, earlier];
  };
  const keywordOf = (field: string, mapping: FieldMapping): string | undefined => {
    const sub = Object.entries(mapping.fields ?? {}).find(([, child]) => child.type === "keyword");
    return sub ? `${field}.${sub[0]}` : undefined;
  };
  const filter = ({ field: logical, value }: SearchFilter): Record<string, unknown> => {
    const [field, mapping] = locate(logical);
    const type = mapping?.type ?? "keyword";
    if (type === "text") {
      const keyword = keywordOf(field, mapping!);
      return keyword ? { term: { [keyword]: value } } : { match_phrase: { [field]: value } };
    }
    return fitsType(value, type) && value.trim() !== "" || type === "keyword"
      ? { term: { [field]: value } }
      : { match_none: {} };
  };
  return {
    filter,
    anyOf({ field: logical, values }) {
      const [field, mapping] = locate(logical);
      const type = mapping?.type ?? "keyword";
      const target = type === "text" ? keywordOf(field, mapping!) : field;
      if (target === undefined) {
        const clauses = values.map((value) => filter({ field: logical, value }));
        return { bool: { should: clauses, minimum_should_match: 1 } };
      }
      // One `terms` clause: no limit on clauses, and the values the type cannot hold left out.
      const fitting = type === "keyword" || type === "text"
        ? values
        : values.filter((value) => value.trim() !== "" && fitsType(value, type));
      return fitting.length === 0 ? { match_none: {} } : { terms: { [target]: fitting } };
    },
    range({ field: logical, gte, lte }) {
      const [field, mapping] = locate(logical);
      const type = mapping?.type ?? "keyword";
      const target = type === "text" ? keywordOf(field, mapping!) : field;
      const bounds = [gte, lte].filter((bound) => bound !== undefined) as string[];
      const fits = type === "keyword" || type === "text" ||
        bounds.every((bound) => bound.trim() !== "" && fitsType(bound, type));
      if (target === undefined || !fits) return { match_none: {} };
      const clause: Record<string, string> = {};
      if (gte !== undefined) clause.gte = gte;
      if (lte !== undefined) clause.lte = lte;
      return { range: { [target]: clause } };
    },
    facetField(logical) {
      const [field, mapping] = locate(logical);
      if (mapping === undefined) return undefined;
      return mapping.type === "text" ? keywordOf(field, mapping) : field;
    },
    sort({ field: logical, order }) {
      if (logical === "_score") return { _score: { order } };
      const [field, mapping] = locate(logical);
      if (mapping === undefined) {
        return { [field]: { order, missing: "_last", unmapped_type: "keyword" } };
      }
      const sortable = mapping.type === "text" ? keywordOf(field, mapping) : field;
      if (sortable === undefined) {
        throw new DomainError("invalid-sort", {
          detail:
            `Field "${logical}" is full-text only in this collection's mappings and cannot be sorted on.`,
        });
      }
      return { [sortable]: { order, missing: "_last" } };
    },
  };
}
