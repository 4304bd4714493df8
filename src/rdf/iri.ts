/**
 * IRI checks shared by parameter validation and the RDF parsers.
 *
 * The service only ever stores absolute IRIs. The check docs/api.md fixes for URI parameters is
 * a scheme, then nothing that can never appear in an IRI (space, control characters,
 * `<>"{}|\^` and backtick). On top of that an IRI must follow RFC 3987's grammar
 * (well-formed `%XX` escapes, one `#`, brackets only around an IP literal, a numeric port,
 * no private-use or non-character code points outside the query): the embedded SPARQL
 * engine (oxigraph) refuses anything else, so one stored item holding such an IRI would
 * make every query of the store, and every initialise that reads it, fail.
 *
 * "White space" means U+0000–U+0020 as in the N-Triples IRIREF rule: other Unicode spaces
 * such as U+00A0 are legal IRI characters (RFC 3987 `ucschar`), and the W3C test suites use
 * them.
 */

/** RFC 3987 `ucschar`. */
const UCSCHAR = "\\u{A0}-\\u{D7FF}\\u{F900}-\\u{FDCF}\\u{FDF0}-\\u{FFEF}" +
  "\\u{10000}-\\u{1FFFD}\\u{20000}-\\u{2FFFD}\\u{30000}-\\u{3FFFD}\\u{40000}-\\u{4FFFD}" +
  "\\u{50000}-\\u{5FFFD}\\u{60000}-\\u{6FFFD}\\u{70000}-\\u{7FFFD}\\u{80000}-\\u{8FFFD}" +
  "\\u{90000}-\\u{9FFFD}\\u{A0000}-\\u{AFFFD}\\u{B0000}-\\u{BFFFD}\\u{C0000}-\\u{CFFFD}" +
  "\\u{D0000}-\\u{DFFFD}\\u{E1000}-\\u{EFFFD}";
/** RFC 3987 `iprivate`: allowed in the query only. */
const IPRIVATE = "\\u{E000}-\\u{F8FF}\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}";
const IUNRESERVED = `A-Za-z0-9\\-._~${UCSCHAR}`;
const SUB_DELIMS = "!$&'()*+,;=";
const PCT_ENCODED = "%[0-9A-Fa-f]{2}";
const IPCHAR = `(?:[${IUNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})`;
const IUSERINFO = `(?:[${IUNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*`;
const IREG_NAME = `(?:[${IUNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})*`;
/** IPv6 literals are checked by {@link isIpv6}; IPvFuture fully here. */
const IP_LITERAL =
  `\\[(?:(?<ipv6>[0-9A-Fa-f:.]+)|[vV][0-9A-Fa-f]+\\.[A-Za-z0-9\\-._~${SUB_DELIMS}:]+)\\]`;
const IAUTHORITY = `(?:${IUSERINFO}@)?(?:${IP_LITERAL}|${IREG_NAME})(?::[0-9]*)?`;
const IHIER_PART =
  `(?:\\/\\/${IAUTHORITY}(?:\\/${IPCHAR}*)*|\\/?(?:${IPCHAR}+(?:\\/${IPCHAR}*)*)?)`;
const IQUERY = `(?:\\?(?:${IPCHAR}|[${IPRIVATE}\\/?])*)?`;
const IFRAGMENT = `(?:#(?:${IPCHAR}|[\\/?])*)?`;

/** RFC 3987 `IRI` (absolute, fragment allowed). */
const RFC3987_IRI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+\\-.]*:${IHIER_PART}${IQUERY}${IFRAGMENT}$`,
  "u",
);

const DEC_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/;
const H16 = /^[0-9A-Fa-f]{1,4}$/;

/** RFC 3986 `IPv6address`, including the `::` shorthand and a trailing IPv4 address. */
function isIpv6(text: string): boolean {
  let address = text;
  let groupsForIpv4 = 0;
  const lastColon = address.lastIndexOf(":");
  if (address.slice(lastColon + 1).includes(".")) {
    const octets = address.slice(lastColon + 1).split(".");
    if (octets.length !== 4 || !octets.every((octet) => DEC_OCTET.test(octet))) return false;
    address = address.slice(0, lastColon + 1) + "0";
    groupsForIpv4 = 1;
  }
  const halves = address.split("::");
  if (halves.length > 2) return false;
  const groups = (half: string) => half === "" ? [] : half.split(":");
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...tail].every((group) => H16.test(group))) return false;
  const count = head.length + tail.length + groupsForIpv4;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/**
 * Whether `value` is an absolute IRI: a scheme, no white space, control character,
 * unpaired surrogate nor any of `<>"{}|\^` and backtick, and RFC 3987's grammar.
 */
export function isAbsoluteIri(value: string): boolean {
  if (!value.includes("[")) return RFC3987_IRI.test(value);
  const match = RFC3987_IRI.exec(value);
  if (!match) return false;
  const ipv6 = match.groups?.ipv6;
  return ipv6 === undefined || isIpv6(ipv6);
}

/** Characters no IRI may hold anywhere: white space, controls, `<>"{}|\^` and backtick. */
// deno-lint-ignore no-control-regex -- control characters are what it finds
const NEVER_IN_IRI = /[\u0000-\u0020\u007F-\u009F<>"{}|\\^`]/;

/**
 * Why `value` is not an absolute IRI, in words for an error message: the first thing found
 * wrong, with its position. Only meaningful when {@link isAbsoluteIri} said no.
 */
export function invalidIriReason(value: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+\-.]*:/.test(value)) {
    return "it does not start with a scheme (such as https:)";
  }
  const never = NEVER_IN_IRI.exec(value);
  if (never) return `${describeCharacter(never[0])} at position ${never.index} is not allowed`;
  if (!value.isWellFormed()) return "it holds an unpaired surrogate (not valid Unicode)";
  const percent = /%(?![0-9A-Fa-f]{2})/.exec(value);
  if (percent) {
    return `the '%' at position ${percent.index} is not followed by two hexadecimal digits`;
  }
  const hash = value.indexOf("#");
  if (hash >= 0 && value.indexOf("#", hash + 1) >= 0) {
    return `a second '#' at position ${value.indexOf("#", hash + 1)} is not allowed`;
  }
  if (value.includes("[") || value.includes("]")) {
    return "'[' and ']' may only enclose an IPv6 address in the host";
  }
  return "it does not follow RFC 3987's IRI grammar (check the port, and private-use or " +
    "non-character code points outside the query)";
}

function describeCharacter(character: string): string {
  const code = character.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code === 0x20) return "a space";
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `the control character ${hex}`;
  return `'${character}'`;
}
