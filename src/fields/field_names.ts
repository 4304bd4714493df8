/**
 * The names of the search fields the service sets itself. Configuration refuses them as a
 * collection's own field names, and search writes them, so they sit below both.
 */
import { languageTextField, SEARCH_LANGUAGES } from "./languages.ts";

/** Field names the service sets on every document; a predicate never takes them. */
export const RESERVED_SEARCH_FIELDS: readonly string[] = [
  "uri",
  "collection",
  "workspace",
  "types",
  "hash",
  "modified",
  "text",
];

/**
 * The fields of an item's labels (`src/search/label_fields.ts`), set when it has one: its
 * labels, searched by `q` above its other text, and their sort keys by reader language.
 */
export const LABELS_FIELD = "labels";
export const SORT_LABEL_FIELD = "sortLabel";

/** Field names the service sets when an item has literals in a search language. */
export const LANGUAGE_TEXT_FIELDS: readonly string[] = SEARCH_LANGUAGES.map(languageTextField);

/**
 * The field listing the linked resources an item's search fields read (their graphs were
 * read to build the document): the items to re-index when one of them changes.
 */
export const LINKED_ITEMS_FIELD = "linkedItems";

/** Every field name the service may set; neither predicates nor configured fields take them. */
export const SERVICE_SEARCH_FIELDS: readonly string[] = [
  ...RESERVED_SEARCH_FIELDS,
  ...LANGUAGE_TEXT_FIELDS,
  LINKED_ITEMS_FIELD,
  LABELS_FIELD,
  SORT_LABEL_FIELD,
];
