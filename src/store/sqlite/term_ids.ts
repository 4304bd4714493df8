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

/**
 * The object column as a SELECT list entry. node:sqlite reads TEXT only up to its first
 * U+0000, which literals may hold (RDF allows it): such a value is read as a BLOB instead,
 * whole, and decoded by {@link decodeObject}. Other values stay TEXT (no decoding cost).
 */
export const OBJECT_COLUMN = "CASE WHEN instr(CAST(o AS BLOB), x'00') > 0 " +
  "THEN CAST(o AS BLOB) ELSE o END AS o";

const utf8 = new TextDecoder();

/** Decodes an object column read through {@link OBJECT_COLUMN}. */
export function decodeObject(id: string | Uint8Array): Quad_Object {
  return termFromId(typeof id === "string" ? id : utf8.decode(id)) as Quad_Object;
}
