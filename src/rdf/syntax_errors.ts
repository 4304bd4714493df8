/**
 * The errors RDF parsing raises for a body it cannot read: where (line, column) and why.
 *
 * Every parser (`parse.ts`, `jsonld_parse.ts`, the bulk block reader) words them here once.
 */
import { DomainError } from "../errors/domain_error.ts";

/** A malformed RDF body (invalid-input), naming the line and column when the parser knows them. */
export function rdfSyntaxProblem(
  format: string,
  message: string,
  line?: number,
  column?: number,
): DomainError {
  const where = line === undefined ? "body" : `line ${line}${column ? `, column ${column}` : ""}`;
  return new DomainError("rdf-syntax", {
    detail: `The ${format} body could not be parsed at ${where}: ${message}`,
    errors: [{ path: line === undefined ? "body" : `${line}:${column ?? 0}`, message }],
  });
}

/**
 * A relative IRI (invalid-input) in an RDF body that has no base to resolve it against: names the
 * IRI and says how to give one (the `base` query parameter, or the syntax's own).
 */
export function relativeIriProblem(format: string, iri: string): DomainError {
  return new DomainError("relative-iri", {
    detail:
      `The ${format} body holds the relative IRI <${iri}> and no base to resolve it against. ` +
      "Pass the document's base as the `base` query parameter (an absolute IRI, e.g. " +
      "`&base=https://example.org/doc`), declare one in the document (@base in Turtle and " +
      "N3, xml:base in RDF/XML, @base in a JSON-LD @context), or write the IRI absolute.",
    errors: [{ path: "base", message: `relative IRI <${iri}> with no base` }],
    extensions: { iri },
  });
}
