/**
 * Local names for shape IRIs: `schema:Person` → `Person`, with a stable suffix when two
 * IRIs from different namespaces share one (`schema:name` → `name`, `foaf:name` → `name_2`).
 *
 * @module
 */
import { compareStrings } from "./compare_strings.ts";

const FALLBACK_NAME = "resource";
const UNSAFE_RUN = /[^\p{L}\p{N}_-]+/gu;

/**
 * The last segment of `iri` (after the last `#` or `/`, else the last `:`), percent-decoded
 * and reduced to letters, digits, `_` and `-` so it reads well inside another IRI.
 * Trailing separators are skipped: `http://ex.org/Person/` → `Person`.
 */
export function localNameOf(iri: string): string {
  const trimmed = iri.replace(/[/#:]+$/, "");
  let cut = Math.max(trimmed.lastIndexOf("#"), trimmed.lastIndexOf("/"));
  if (cut < 0) cut = trimmed.lastIndexOf(":");
  const raw = trimmed.slice(cut + 1);
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: keep the raw text, the sanitising below still applies.
  }
  const name = decoded.replace(UNSAFE_RUN, "_");
  return /^_*$/.test(name) ? FALLBACK_NAME : name;
}

/**
 * Gives every IRI a distinct local name.
 *
 * The same set of IRIs always gets the same names, whatever order they come in: among
 * IRIs sharing a local name, the smallest IRI (code-unit order) keeps it, the others get
 * `_2`, `_3`, … in IRI order, skipping any name already taken. `reserved` names are never
 * given out.
 */
export function assignLocalNames(
  iris: Iterable<string>,
  reserved: Iterable<string> = [],
): Map<string, string> {
  const sorted = [...new Set(iris)].sort(compareStrings);
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  const clashing: string[] = [];
  // Natural names are claimed first so that an IRI whose own name is `name_2` keeps it.
  for (const iri of sorted) {
    const name = localNameOf(iri);
    if (taken.has(name)) {
      clashing.push(iri);
    } else {
      taken.add(name);
      names.set(iri, name);
    }
  }
  for (const iri of clashing) {
    const base = localNameOf(iri);
    let suffix = 2;
    while (taken.has(`${base}_${suffix}`)) suffix++;
    const name = `${base}_${suffix}`;
    taken.add(name);
    names.set(iri, name);
  }
  return names;
}
