/**
 * The service's typed errors: what went wrong, in the domain's words, for every layer.
 *
 * Stores, engines, parsers, services and the HTTP layer throw these; none but the HTTP edge
 * knows statuses. Each error names its problem by slug (`src/errors/problems.ts` gives the
 * slug its {@link ErrorKind} and title) and carries what varies per occurrence: the detail
 * (what clients read), the parameter, line or JSON pointer that is wrong, and any extra
 * members. The HTTP edge (`src/http/problem.ts`) maps kind → status and the whole error →
 * problem+json, in one place.
 */
import { type ErrorKind, PROBLEMS, type ProblemSlug } from "./problems.ts";

export type { ErrorKind } from "./problems.ts";

/** One place where the input is wrong, and why. */
export interface FieldError {
  /** A parameter name, a JSON pointer, or `line:column` in an RDF body. */
  path: string;
  message: string;
}

/** What a throw site says about one occurrence of a problem; kind and title are the catalogue's. */
export interface ProblemOptions {
  /** What went wrong this time, for the client to read. */
  detail: string;
  /** Where the input is wrong, when it is. */
  errors?: FieldError[];
  /** Extra members of the problem (`iri`, `line`, `endpointStatus`, `retryAfter`, ...). */
  extensions?: Record<string, unknown>;
  /** The underlying error, for logs (never sent to clients). */
  cause?: unknown;
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

/** A failure the domain names: a problem of the catalogue, with this occurrence's detail. */
export class DomainError extends Error {
  /** The public problem type: `/problems/<slug>`. */
  readonly slug: ProblemSlug;
  /** Where the input is wrong, when it is. */
  readonly errors?: FieldError[];
  /** Extra members of the problem (`iri`, `line`, `endpointStatus`, ...). */
  readonly extensions: Record<string, unknown>;

  constructor(slug: ProblemSlug, options: ProblemOptions) {
    super(options.detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DomainError";
    this.slug = slug;
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
  }

  /** What kind of failure this is (the catalogue's). */
  get kind(): ErrorKind {
    return PROBLEMS[this.slug].kind;
  }

  /** The problem's title (the catalogue's). */
  get title(): string {
    return PROBLEMS[this.slug].title;
  }
}

/** True for an error of one of `kinds`. */
export function isErrorKind(error: unknown, ...kinds: ErrorKind[]): boolean {
  return error instanceof DomainError && kinds.includes(error.kind);
}

/** True for an error that is one of the problems `slugs`: the way code branches on a problem. */
export function isProblem<S extends ProblemSlug>(
  error: unknown,
  ...slugs: S[]
): error is DomainError & { readonly slug: S } {
  return error instanceof DomainError && (slugs as ProblemSlug[]).includes(error.slug);
}

/**
 * True for a DomainError that is the system's fault (a backend failed or is unreachable, a
 * timeout, a broken invariant), not the input's.
 */
export function isSystemFailure(error: unknown): boolean {
  return error instanceof DomainError && SYSTEM_FAILURES.has(error.kind);
}
