/**
 * Prefixes for the namespaces of the data's classes, predicates and datatypes, so the
 * shapes read `schema:Person` rather than `<http://schema.org/Person>`.
 *
 * @module
 */
import { compareStrings } from "./compare_strings.ts";
import type { PrefixDeclaration } from "./turtle.ts";

/** Prefixes people already know these namespaces by. */
const WELL_KNOWN_PREFIXES: Readonly<Record<string, string>> = {
  "http://www.w3.org/2000/01/rdf-schema#": "rdfs",
  "http://www.w3.org/2002/07/owl#": "owl",
  "http://schema.org/": "schema",
  "https://schema.org/": "schema",
  "http://xmlns.com/foaf/0.1/": "foaf",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://www.w3.org/2004/02/skos/core#": "skos",
  "http://www.w3.org/ns/dcat#": "dcat",
  "http://www.w3.org/ns/prov#": "prov",
  "http://www.w3.org/2006/vcard/ns#": "vcard",
  "http://www.w3.org/2003/01/geo/wgs84_pos#": "geo",
  "http://www.w3.org/ns/org#": "org",
  "http://www.w3.org/2006/time#": "time",
};

/** Names Turtle readers could trip over or that would mislead a reader. */
const AVOIDED_PREFIXES = ["true", "false", "base", "prefix"];
const FALLBACK_PREFIX = "ns";
const MAX_PREFIX_LENGTH = 12;

/**
 * The namespace of an IRI: everything up to its last `#` or `/` (else its last `:`), or
 * undefined when that leaves no local name or only a scheme (`http://`).
 */
export function namespaceOf(iri: string): string | undefined {
  let cut = Math.max(iri.lastIndexOf("#"), iri.lastIndexOf("/"));
  if (cut < 0) cut = iri.lastIndexOf(":");
  if (cut < 0 || cut === iri.length - 1) return undefined;
  const namespace = iri.slice(0, cut + 1);
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/*$/.test(namespace) ? undefined : namespace;
}

/**
 * Declarations for `fixed` plus one prefix per other namespace, sorted by prefix.
 *
 * Deterministic: namespaces are named in code-unit order, a well-known prefix first, else
 * one derived from the last meaningful path segment or the host; a name already taken gets
 * `2`, `3`, …. Namespaces already declared in `fixed` are skipped.
 */
export function declarePrefixes(
  namespaces: Iterable<string>,
  fixed: readonly PrefixDeclaration[],
): PrefixDeclaration[] {
  const declarations = [...fixed];
  const declared = new Set(fixed.map((declaration) => declaration.namespace));
  const taken = new Set([...AVOIDED_PREFIXES, ...fixed.map((declaration) => declaration.prefix)]);
  for (const namespace of [...new Set(namespaces)].sort(compareStrings)) {
    if (declared.has(namespace)) continue;
    const base = suggestPrefix(namespace);
    let prefix = base;
    for (let suffix = 2; taken.has(prefix); suffix++) prefix = `${base}${suffix}`;
    taken.add(prefix);
    declared.add(namespace);
    declarations.push({ prefix, namespace });
  }
  return declarations.sort((a, b) => compareStrings(a.prefix, b.prefix));
}

function suggestPrefix(namespace: string): string {
  const known = WELL_KNOWN_PREFIXES[namespace];
  if (known) return known;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/.exec(namespace);
  const rest = scheme ? namespace.slice(scheme[0].length) : namespace;
  const parts = rest.split(/[/#:?=&;]+/).filter((part) => part.length > 0);
  const host = scheme?.[2] ? parts.shift() ?? "" : "";
  for (const segment of parts.reverse()) {
    if (/^v?\d+([._-]\d+)*$/i.test(segment)) continue; // versions say nothing about content
    const candidate = cleanPrefix(segment);
    // One letter says little and `a:` reads like the `a` keyword.
    if (candidate.length > 1) return candidate;
  }
  const labels = host.replace(/:\d+$/, "").split(".").filter((label) => label !== "www");
  if (labels.length > 1) labels.pop(); // the top-level domain
  for (const label of labels) {
    const candidate = cleanPrefix(label);
    if (candidate) return candidate;
  }
  return FALLBACK_PREFIX;
}

/** Lower-case ASCII letters and digits, starting with a letter: always a valid PN_PREFIX. */
function cleanPrefix(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "").replace(/^[0-9]+/, "")
    .slice(0, MAX_PREFIX_LENGTH);
}
