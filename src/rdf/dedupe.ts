/**
 * Set semantics for quads before hashing: an RDF dataset is a set, so a quad sent twice
 * counts once. rdf-canonize keeps duplicates when it is handed parsed quads (only its own
 * N-Quads parser removes them), so the hash pipeline removes them first.
 */
// @ts-types="@types/n3"
import { type Quad, type Term, termToId } from "n3";
import { termIdentity } from "./language_tags.ts";

/**
 * A string equal for two terms exactly when they are the same RDF term.
 *
 * n3's term id encodes the whole term (a literal's value, language and datatype) and is
 * stored on n3 terms, so it costs nothing to read. The type letter keeps an IRI apart from
 * a blank node label or variable with the same text, and the length prefix lets keys be
 * concatenated without ambiguity whatever the text contains. A literal's language tag is
 * compared in lower case, as RDF compares tags: `"a"@en-US` and `"a"@en-us` are one term,
 * kept in the spelling met first.
 */
export function termKey(term: Term): string {
  const id = termIdentity(termToId(term));
  return `${term.termType[0]}${id.length}:${id}`;
}

/** A string equal for two quads exactly when they are the same quad. */
export function quadKey(quad: Quad): string {
  return termKey(quad.subject) + termKey(quad.predicate) + termKey(quad.object) +
    termKey(quad.graph);
}

/** The distinct quads of `quads`, each kept at its first occurrence. */
export function distinctQuads(quads: Iterable<Quad>): Quad[] {
  const seen = new Set<string>();
  const distinct: Quad[] = [];
  for (const quad of quads) {
    const key = quadKey(quad);
    if (seen.has(key)) continue;
    seen.add(key);
    distinct.push(quad);
  }
  return distinct;
}
