/**
 * The one string order SHACL generation sorts by.
 *
 * @module
 */

/** Code-unit order: locale-independent, so the same input always sorts the same way. */
export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
