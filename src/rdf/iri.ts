/**
 * IRI checks shared by parameter validation and the RDF parsers.
 *
 * The service only ever stores absolute IRIs. This is the lexical check API.md fixes for
 * URI parameters, not a full RFC 3987 parser: a scheme, then nothing that can never appear
 * in an IRI (space, control characters, `<>"{}|\^` and backtick).
 *
 * "White space" means U+0000–U+0020 as in the N-Triples IRIREF rule: other Unicode spaces
 * such as U+00A0 are legal IRI characters (RFC 3987 `ucschar`), and the W3C test suites use
 * them.
 */

/** A scheme (`[A-Za-z][A-Za-z0-9+.-]*:`), then only characters an IRI may hold. */
// deno-lint-ignore no-control-regex -- control characters are exactly what is refused
const ABSOLUTE_IRI = /^[A-Za-z][A-Za-z0-9+.\-]*:[^\u0000-\u0020\u007f-\u009f<>"{}|\\^`]*$/;

/** Unpaired UTF-16 surrogates cannot be encoded as UTF-8, so they cannot be in an IRI. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `value` is an absolute IRI: it starts with a scheme and contains no white space,
 * control character, unpaired surrogate, nor any of `<>"{}|\^` and backtick.
 */
export function isAbsoluteIri(value: string): boolean {
  return ABSOLUTE_IRI.test(value) && !LONE_SURROGATE.test(value);
}
