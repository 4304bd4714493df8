/**
 * Compact, exact text forms of RDF terms for storage: N3.js's term ids.
 * IRIs are stored bare, blank nodes as `_:label`, literals as `"value"^^<dt>` / `"value"@lang`.
 * A blank node is stored scoped to its item (`_:i<item id>_label`): two items' `_:b0` are two
 * nodes, in SPARQL as in RDF; reading the item back takes the scope off again.
 */
import { termToId } from "n3";
import { termFromId } from "../rdf/language_tags.ts";
import type { Quad_Object, Quad_Predicate, Quad_Subject, Term } from "n3";

/** Encodes a term for the dictionary, blank nodes scoped to item `itemId`. */
export function encodeTerm(term: Term, itemId: number): string {
  return term.termType === "BlankNode" ? `_:i${itemId}_${term.value}` : termToId(term);
}

/** The stored text of a term that holds no blank node (a query's constants). */
export function encodeConstant(term: { termType: string; value: string }): string {
  return termToId(term as Term);
}

/** A stored blank node's label as its item wrote it: the item scope taken off. */
function unscoped(id: string): string {
  return id.startsWith("_:i") ? id.replace(/^_:i\d+_/, "_:") : id;
}

/** Decodes a subject read back into its item. */
export function decodeSubject(id: string): Quad_Subject {
  return termFromId(unscoped(id)) as Quad_Subject;
}

/** Decodes a predicate. */
export function decodePredicate(id: string): Quad_Predicate {
  return termFromId(id) as Quad_Predicate;
}

/** Decodes an object read back into its item. */
export function decodeObject(id: string): Quad_Object {
  return termFromId(unscoped(id)) as Quad_Object;
}
