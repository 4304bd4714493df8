/**
 * Which prefixes a document declares: the ones the service knows (the well-known ones and a
 * collection context's) that the graph uses, so downloads say `schema:name` rather than an
 * invented `ns0:name`, and a short graph does not carry a list of prefixes it never uses.
 */
import type { Quad, Term } from "n3";
import { isAbsoluteIri } from "../iri.ts";

/** A prefix name every syntax that takes prefixes can write (Turtle PN_PREFIX ∩ XML NCName). */
const WRITABLE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The prefixes any writer can declare: a writable name bound to an absolute IRI. */
export function writablePrefixes(
  prefixes: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(prefixes).filter(([name, namespace]) =>
      WRITABLE_NAME.test(name) && isAbsoluteIri(namespace)
    ),
  );
}

/**
 * The writable prefixes of `prefixes` whose namespace starts an IRI of `quads` (a term, or a
 * literal's datatype) with something after it; one name per namespace, the first given.
 */
export function prefixesUsedBy(
  quads: Iterable<Quad>,
  prefixes: Readonly<Record<string, string>>,
): Record<string, string> {
  const candidates = Object.entries(writablePrefixes(prefixes));
  const used = new Map<string, string>();
  const visit = (term: Term) => {
    const iri = term.termType === "NamedNode"
      ? term.value
      : term.termType === "Literal"
      ? term.datatype.value
      : undefined;
    if (iri === undefined) return;
    for (const [name, namespace] of candidates) {
      if (iri.length > namespace.length && iri.startsWith(namespace) && !used.has(namespace)) {
        used.set(namespace, name);
      }
    }
  };
  for (const quad of quads) {
    visit(quad.subject);
    visit(quad.predicate);
    visit(quad.object);
  }
  return Object.fromEntries([...used].map(([namespace, name]) => [name, namespace]));
}
