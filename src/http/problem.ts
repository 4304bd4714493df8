/**
 * RFC 9457 problem details: the one error shape the service answers with.
 *
 * Every layer throws {@link DomainError}s (`src/errors/`), which know no HTTP; this module
 * gives each error kind its status, once ({@link STATUS_OF_KIND}), and each error its
 * problem+json body. {@link ProblemError} is that view of a domain error, holding no fact of
 * its own. The app's error handler answers with it; anything else thrown becomes a 500 that
 * names the request id and never leaks a stack.
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

/** The HTTP status of each kind of domain error: the one place a kind becomes a status. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  "invalid-input": 400,
  "unauthenticated": 401,
  "forbidden": 403,
  "not-found": 404,
  "not-acceptable": 406,
  "gone": 410,
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

/** A domain error as HTTP answers it: its status and its problem+json body. */
export class ProblemError {
  constructor(readonly error: DomainError) {}

  /** The status of the error's kind. */
  get status(): number {
    return STATUS_OF_KIND[this.error.kind];
  }

  get slug(): DomainError["slug"] {
    return this.error.slug;
  }

  get title(): string {
    return this.error.title;
  }

  /** The problem's detail. */
  get message(): string {
    return this.error.message;
  }

  get errors(): ProblemFieldError[] | undefined {
    return this.error.errors;
  }

  get extensions(): Record<string, unknown> {
    return this.error.extensions;
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

  toString(): string {
    return `${this.status} ${this.slug}: ${this.message}`;
  }
}

/** 404 for a job id no record has; `kind` names the kind of job ("indexing", "import"). */
export function jobNotFound(kind: string, id: string): DomainError {
  return new DomainError("job-not-found", {
    detail: `No ${kind} job ${JSON.stringify(id)} is recorded.`,
  });
}

/** The problem an error is answered with, or undefined for an unexpected error (a 500). */
export function problemOf(error: unknown): ProblemError | undefined {
  if (error instanceof ProblemError) return error;
  if (error instanceof DomainError) return new ProblemError(error);
  return undefined;
}
