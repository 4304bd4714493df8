/**
 * A resource's label for people: the properties that name a resource, most telling first,
 * and which of its labels suits a reader's languages.
 */

/** The properties read as labels, in order of preference. */
export const LABEL_PROPERTIES: readonly string[] = [
  "http://www.w3.org/2004/02/skos/core#prefLabel",
  "http://www.w3.org/2000/01/rdf-schema#label",
  "http://schema.org/name",
  "https://schema.org/name",
  "http://purl.org/dc/terms/title",
  "http://purl.org/dc/elements/1.1/title",
  "http://xmlns.com/foaf/0.1/name",
];

/** One candidate label of a resource. */
export interface LabelCandidate {
  property: string;
  value: string;
  /** The literal's language tag; "" when untagged. */
  language: string;
}

/**
 * The reader's languages from an `Accept-Language` header, best first, lower case; `*` and
 * `q=0` entries left out.
 */
export function languagesOf(acceptLanguage: string | undefined): string[] {
  const ranked = (acceptLanguage ?? "").split(",").map((entry, position) => {
    const [tag, ...parameters] = entry.trim().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, position };
  }).filter(({ tag, q }) => tag !== "" && tag !== "*" && q > 0 && Number.isFinite(q));
  ranked.sort((a, b) => b.q - a.q || a.position - b.position);
  return [...new Set(ranked.map(({ tag }) => tag))];
}

/**
 * How well a literal's language suits the reader: an exact match of the first language
 * best, then its primary subtag (`de-CH` for `de`, `de` for `de-CH`), then the next
 * language…, then untagged, then English, then anything.
 */
function languageRank(language: string, readers: readonly string[]): number {
  const tag = language.toLowerCase();
  const primary = tag.split("-")[0];
  for (const [position, reader] of readers.entries()) {
    if (tag === reader) return position * 2;
    if (tag !== "" && primary === reader.split("-")[0]) return position * 2 + 1;
  }
  const after = readers.length * 2;
  if (tag === "") return after;
  if (primary === "en") return after + 1;
  return after + 2;
}

/** The best label among `candidates` for readers of `languages`; undefined when none. */
export function chooseLabel(
  candidates: readonly LabelCandidate[],
  languages: readonly string[],
): LabelCandidate | undefined {
  const rank = (candidate: LabelCandidate) => {
    const property = LABEL_PROPERTIES.indexOf(candidate.property);
    return languageRank(candidate.language, languages) * LABEL_PROPERTIES.length +
      (property < 0 ? LABEL_PROPERTIES.length : property);
  };
  let best: LabelCandidate | undefined;
  for (const candidate of candidates) {
    if (candidate.value.trim() === "") continue;
    if (
      best === undefined || rank(candidate) < rank(best) ||
      // The same rank: the smaller value, so the answer never depends on the store's order.
      (rank(candidate) === rank(best) && candidate.value < best.value)
    ) best = candidate;
  }
  return best;
}
