/**
 * RFC 9457 problem details: the one error shape the service answers with.
 *
 * Domain code throws {@link ProblemError}; the app's error handler turns it into an
 * `application/problem+json` response. Anything else thrown becomes a 500 that names the
 * request id and never leaks a stack.
 */

/** One entry of a problem's `errors` list: where the input is wrong, and why. */
export interface ProblemFieldError {
  /** A parameter name, a JSON pointer, or `line:column` in an RDF body. */
  path: string;
  message: string;
}

/** The JSON body of a problem response. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ProblemFieldError[];
  [extension: string]: unknown;
}

/** An error that carries its own HTTP status and problem type slug. */
export class ProblemError extends Error {
  readonly status: number;
  readonly slug: string;
  readonly title: string;
  readonly errors?: ProblemFieldError[];
  readonly extensions: Record<string, unknown>;

  constructor(
    status: number,
    slug: string,
    title: string,
    detail: string,
    errors?: ProblemFieldError[],
    extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = "ProblemError";
    this.status = status;
    this.slug = slug;
    this.title = title;
    this.errors = errors;
    this.extensions = extensions;
  }

  /** The problem+json body for this error. */
  toBody(): ProblemBody {
    const body: ProblemBody = {
      type: `/problems/${this.slug}`,
      title: this.title,
      status: this.status,
      detail: this.message,
      ...this.extensions,
    };
    if (this.errors && this.errors.length > 0) body.errors = this.errors;
    return body;
  }
}

/** 400 for a malformed RDF body, naming the line and column when the parser knows them. */
export function rdfSyntaxProblem(
  format: string,
  message: string,
  line?: number,
  column?: number,
): ProblemError {
  const where = line === undefined ? "body" : `line ${line}${column ? `, column ${column}` : ""}`;
  return new ProblemError(
    400,
    "rdf-syntax",
    "Malformed RDF",
    `The ${format} body could not be parsed at ${where}: ${message}`,
    [{ path: line === undefined ? "body" : `${line}:${column ?? 0}`, message }],
  );
}

/**
 * 400 for a relative IRI in an RDF body that has no base to resolve it against: names the
 * IRI and says how to give one (the `base` query parameter, or the syntax's own).
 */
export function relativeIriProblem(format: string, iri: string): ProblemError {
  return new ProblemError(
    400,
    "relative-iri",
    "Relative IRI without a base",
    `The ${format} body holds the relative IRI <${iri}> and no base to resolve it against. ` +
      "Pass the document's base as the `base` query parameter (an absolute IRI, e.g. " +
      "`&base=https://example.org/doc`), declare one in the document (@base in Turtle and " +
      "N3, xml:base in RDF/XML, @base in a JSON-LD @context), or write the IRI absolute.",
    [{ path: "base", message: `relative IRI <${iri}> with no base` }],
    { iri },
  );
}

/** 404 for a job id no record has; `kind` names the kind of job ("indexing", "import"). */
export function jobNotFound(kind: string, id: string): ProblemError {
  return new ProblemError(
    404,
    "job-not-found",
    "Job not found",
    `No ${kind} job ${JSON.stringify(id)} is recorded.`,
  );
}
