/**
 * The label fields of a search document: the item's own labels (the properties
 * `src/rdf/labels.ts` reads as labels), which `q` weighs above its other text, and one sort
 * key per reader language, which `sort=label` sorts on.
 *
 * A sort key is the label a reader of that language is shown (`chooseLabel`: that language,
 * else untagged, else English, else any), folded to lower case without diacritics: that is
 * the whole "collation" of `sort=label`, the same on both engines because it is made here,
 * not by an engine. Keys are kept for every search language (and `any`, for a reader who
 * names none) so that an engine sorts on one field, with no fallback of its own.
 */
import type { Literal, Quad } from "n3";
import { chooseLabel, LABEL_PROPERTIES, type LabelCandidate } from "../rdf/labels.ts";
import { SEARCH_LANGUAGES } from "../fields/languages.ts";
import { LABELS_FIELD, SORT_LABEL_FIELD } from "../fields/field_names.ts";
import type { SearchSort } from "./search_engine.ts";
import { KEYWORD_IGNORE_ABOVE } from "./mapped_fields.ts";

/** How much more a word of a label weighs for `q` than one elsewhere, on both engines. */
export const LABEL_WEIGHT = 5;

/**
 * The longest literal taken as a label (characters): longer ones are text, not labels. As
 * long as the longest string a facet counts.
 */
const MAX_LABEL_LENGTH = KEYWORD_IGNORE_ABOVE;

/** The sort field the search route's `sort=label` names. */
export const LABEL_SORT = "label";
/** The sort key of a reader who names no language. */
const ANY_LANGUAGE = "any";

const LABELS = new Set(LABEL_PROPERTIES);

/** The label literals of `item` itself (not of the blank nodes or resources it points to). */
export function itemLabels(item: string, quads: readonly Quad[]): LabelCandidate[] {
  const labels: LabelCandidate[] = [];
  for (const quad of quads) {
    if (
      quad.subject.termType !== "NamedNode" || quad.subject.value !== item ||
      !LABELS.has(quad.predicate.value) || quad.object.termType !== "Literal"
    ) continue;
    labels.push({
      property: quad.predicate.value,
      value: quad.object.value,
      language: (quad.object as Literal).language ?? "",
    });
  }
  return labels;
}

/** The label fields of a document with labels `labels`; none when the item has no label. */
export function labelFields(
  labels: readonly LabelCandidate[],
): Record<string, string | Record<string, string>> {
  // A literal longer than a label can be (a 50 MB title) stays in `text` only: weighing it
  // as a label would copy it, and a sort key needs only its start.
  const shortLabels = labels.filter((label) => label.value.length <= MAX_LABEL_LENGTH);
  const values = [
    ...new Set(shortLabels.map((label) => label.value).filter((v) => v.trim() !== "")),
  ];
  if (values.length === 0) return {};
  const keys: Record<string, string> = {};
  const keyOf = new Map<string, string>(); // one key per label, whatever the languages
  for (const language of [ANY_LANGUAGE, ...SEARCH_LANGUAGES]) {
    const chosen = chooseLabel(shortLabels, language === ANY_LANGUAGE ? [] : [language]);
    if (!chosen) continue;
    let key = keyOf.get(chosen.value);
    if (key === undefined) keyOf.set(chosen.value, key = sortKey(chosen.value));
    keys[language] = key;
  }
  return {
    [LABELS_FIELD]: values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join("\n"),
    [SORT_LABEL_FIELD]: keys,
  };
}

/** `text` folded for sorting: compatibility-decomposed, marks dropped, lower case. */
export function sortKey(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().trim();
}

/**
 * The engine's sort keys of a request: `label` becomes the label sort key of `language`
 * (a search language, or none); other keys are as asked.
 */
export function resolveLabelSort(
  sort: readonly SearchSort[] | undefined,
  language: string | undefined,
): SearchSort[] | undefined {
  if (sort === undefined) return undefined;
  const key = language !== undefined && SEARCH_LANGUAGES.includes(language)
    ? language
    : ANY_LANGUAGE;
  return sort.map((entry) =>
    entry.field === LABEL_SORT ? { ...entry, field: `${SORT_LABEL_FIELD}.${key}` } : entry
  );
}
