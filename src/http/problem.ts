/**
 * RFC 9457 problem details: the one error shape the service answers with.
 *
 * Domain code throws {@link DomainError}s (`src/errors/`), which know no HTTP; this module
 * gives each error kind its status, once ({@link STATUS_OF_KIND}). The HTTP layer and routes
 * throw {@link ProblemError}s for what only HTTP knows (authentication, negotiation, route
 * parameters). The app's error handler turns both into an `application/problem+json`
 * response. Anything else thrown becomes a 500 that names the request id and never leaks a
 * stack.
 */
import { DomainError, type ErrorKind, type FieldError } from "../errors/domain_error.ts";

/** One entry of a problem's `errors` list: where the input is wrong, and why. */
export type ProblemFieldError = FieldError;

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

/** 404 for a job id no record has; `kind` names the kind of job ("indexing", "import"). */
export function jobNotFound(kind: string, id: string): ProblemError {
  return new ProblemError(
    404,
    "job-not-found",
    "Job not found",
    `No ${kind} job ${JSON.stringify(id)} is recorded.`,
  );
}

/** The HTTP status of each kind of domain error: the one place a kind becomes a status. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  "invalid-input": 400,
  "not-found": 404,
  "conflict": 409,
  "precondition-failed": 412,
  "too-large": 413,
  "unsupported-media": 415,
  "unprocessable": 422,
  "internal": 500,
  "not-implemented": 501,
  "backend-failed": 502,
  "unavailable": 503,
  "timeout": 504,
  "insufficient-storage": 507,
};

/** The problem a domain error is answered with: same slug, title, detail and members. */
export function problemFromDomain(error: DomainError): ProblemError {
  const problem = new ProblemError(
    STATUS_OF_KIND[error.kind],
    error.slug,
    error.title,
    error.message,
    error.errors,
    error.extensions,
  );
  problem.cause = error;
  return problem;
}

/** The problem an error is answered with, or undefined for an unexpected error (a 500). */
export function problemOf(error: unknown): ProblemError | undefined {
  if (error instanceof ProblemError) return error;
  if (error instanceof DomainError) return problemFromDomain(error);
  return undefined;
}
