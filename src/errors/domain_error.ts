/**
 * The service's typed errors: what went wrong, in the domain's words, for every layer.
 *
 * Stores, engines, parsers and services throw these; none of them knows HTTP. Each error
 * carries its public problem slug, title and detail (what clients read), the parameter, line
 * or JSON pointer that is wrong, and any extra members; its {@link ErrorKind} says what kind
 * of failure it is. The HTTP edge (`src/http/problem.ts`) maps kind → status and the whole
 * error → problem+json, in one place.
 */

/** What kind of failure an error is; the HTTP edge gives each kind its status. */
export type ErrorKind =
  /** The request's input is wrong (a parameter, a body line, a pointer): fix it and retry. */
  | "invalid-input"
  /** What the request names does not exist. */
  | "not-found"
  /** The request clashes with the current state (an item exists, a job runs). */
  | "conflict"
  /** The caller's expected version is not the current one. */
  | "precondition-failed"
  /** The input exceeds a configured size limit. */
  | "too-large"
  /** The input's format is not one the service reads. */
  | "unsupported-media"
  /** The input is well-formed but breaks a rule (shapes, canonicalization budget). */
  | "unprocessable"
  /** A backend (store, search engine) answered something the service cannot use. */
  | "backend-failed"
  /** A backend cannot be reached, or the service is stopping: retry later. */
  | "unavailable"
  /** The data directory takes no writes (disk full, read-only file system). */
  | "insufficient-storage"
  /** The work did not finish within its time budget. */
  | "timeout"
  /** This engine does not offer the operation. */
  | "not-implemented"
  /** The service itself is wrong (a broken invariant). */
  | "internal";

/** One place where the input is wrong, and why. */
export interface FieldError {
  /** A parameter name, a JSON pointer, or `line:column` in an RDF body. */
  path: string;
  message: string;
}

/** Kinds that are the system's fault, not the input's: the same request may succeed later. */
const SYSTEM_FAILURES: ReadonlySet<ErrorKind> = new Set([
  "backend-failed",
  "unavailable",
  "insufficient-storage",
  "timeout",
  "not-implemented",
  "internal",
]);

/** A failure the domain names: kind, public slug, title and detail. */
export class DomainError extends Error {
  readonly kind: ErrorKind;
  /** The public problem type: `/problems/<slug>`. */
  readonly slug: string;
  readonly title: string;
  /** Where the input is wrong, when it is. */
  readonly errors?: FieldError[];
  /** Extra members of the problem (`iri`, `line`, `endpointStatus`, ...). */
  readonly extensions: Record<string, unknown>;

  constructor(
    kind: ErrorKind,
    slug: string,
    title: string,
    detail: string,
    errors?: FieldError[],
    extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = "DomainError";
    this.kind = kind;
    this.slug = slug;
    this.title = title;
    this.errors = errors;
    this.extensions = extensions;
  }
}

/** True for an error of one of `kinds`. */
export function isErrorKind(error: unknown, ...kinds: ErrorKind[]): boolean {
  return error instanceof DomainError && kinds.includes(error.kind);
}

/**
 * True for a DomainError that is the system's fault (a backend failed or is unreachable, a
 * timeout, a broken invariant), not the input's.
 */
export function isSystemFailure(error: unknown): boolean {
  return error instanceof DomainError && SYSTEM_FAILURES.has(error.kind);
}

type Details = [
  slug: string,
  title: string,
  detail: string,
  errors?: FieldError[],
  extensions?: Record<string, unknown>,
];

/** The input is wrong: `errors` names the parameter, line or pointer. */
export class InvalidInput extends DomainError {
  constructor(...details: Details) {
    super("invalid-input", ...details);
  }
}

/** What the request names does not exist. */
export class NotFound extends DomainError {
  constructor(...details: Details) {
    super("not-found", ...details);
  }
}

/** The request clashes with the current state. */
export class Conflict extends DomainError {
  constructor(...details: Details) {
    super("conflict", ...details);
  }
}

/** The expected version is not the current one. */
export class PreconditionFailed extends DomainError {
  constructor(...details: Details) {
    super("precondition-failed", ...details);
  }
}

/** The input exceeds a size limit. */
export class TooLarge extends DomainError {
  constructor(...details: Details) {
    super("too-large", ...details);
  }
}

/** The input's format is not one the service reads. */
export class UnsupportedMedia extends DomainError {
  constructor(...details: Details) {
    super("unsupported-media", ...details);
  }
}

/** Well-formed input that breaks a rule. */
export class Unprocessable extends DomainError {
  constructor(...details: Details) {
    super("unprocessable", ...details);
  }
}

/** A backend answered something unusable. */
export class BackendFailed extends DomainError {
  constructor(...details: Details) {
    super("backend-failed", ...details);
  }
}

/** A backend is unreachable, or the service is stopping. */
export class Unavailable extends DomainError {
  constructor(...details: Details) {
    super("unavailable", ...details);
  }
}

/** The work overran its time budget. */
export class Timeout extends DomainError {
  constructor(...details: Details) {
    super("timeout", ...details);
  }
}

/** This engine does not offer the operation. */
export class NotImplemented extends DomainError {
  constructor(...details: Details) {
    super("not-implemented", ...details);
  }
}

/** The service's own storage takes no writes (full, read-only). */
export class InsufficientStorage extends DomainError {
  constructor(...details: Details) {
    super("insufficient-storage", ...details);
  }
}

/** A broken invariant inside the service. */
export class InternalFault extends DomainError {
  constructor(...details: Details) {
    super("internal", ...details);
  }
}
