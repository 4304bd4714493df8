/**
 * A graph a format cannot write: which term, and why. Writers throw it; the routes turn it
 * into a 406 before the first byte is sent (src/routes/rdf_response.ts), so a download
 * never fails half way or with a 500 for a graph that is fine in other formats.
 */

/** Thrown for a term that the format has no way to write. */
export class InexpressibleError extends Error {
  constructor(
    /** The format's name as users know it ("RDF/XML"). */
    readonly format: string,
    /** The term, as N-Triples writes it (shortened when long). */
    readonly term: string,
    /** Why the format cannot carry it. */
    readonly reason: string,
  ) {
    super(`${term} cannot be written as ${format}: ${reason}`);
    this.name = "InexpressibleError";
  }
}

/** A term for a message: N-Triples-like, control characters escaped, at most ~120 chars. */
export function describeTerm(kind: "iri" | "literal", value: string): string {
  const escaped = value.replace(
    // deno-lint-ignore no-control-regex -- control characters are what is escaped
    /[\u0000-\u001F\u007F"\\]/g,
    (c) =>
      c === '"' || c === "\\" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  const short = escaped.length > 120 ? `${escaped.slice(0, 117)}...` : escaped;
  return kind === "iri" ? `<${short}>` : `"${short}"`;
}
