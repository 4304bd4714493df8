/**
 * Compact, exact text forms of RDF terms for storage: N3.js's term ids.
 * IRIs are stored bare, blank nodes as `_:label`, literals as `"value"^^<dt>` / `"value"@lang`.
 */
import { termFromId, termToId } from "n3";
import type { Quad_Object, Quad_Predicate, Quad_Subject, Term } from "n3";

/** Encodes a term for a storage column. */
export function encodeTerm(term: Term): string {
  return termToId(term);
}

/** Decodes a subject column. */
export function decodeSubject(id: string): Quad_Subject {
  return termFromId(id) as Quad_Subject;
}

/** Decodes a predicate column. */
export function decodePredicate(id: string): Quad_Predicate {
  return termFromId(id) as Quad_Predicate;
}

/** Decodes an object column. */
export function decodeObject(id: string): Quad_Object {
  return termFromId(id) as Quad_Object;
}
