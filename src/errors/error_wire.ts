/**
 * Errors across a thread boundary: a worker's {@link DomainError} arrives as the same problem
 * (slug), detail, field errors and extensions, so the HTTP edge answers exactly as if the
 * work had run on the request thread; its kind and title follow from the slug. Any other
 * error keeps its message.
 */
import { DomainError, type FieldError } from "./domain_error.ts";
import type { ProblemSlug } from "./problems.ts";

/** An error as plain data. */
export type WireError =
  | {
    domain: true;
    slug: ProblemSlug;
    detail: string;
    errors?: FieldError[];
    extensions: Record<string, unknown>;
  }
  | { domain: false; name: string; message: string; stack?: string };

/** The error as data that `postMessage` keeps whole. */
export function errorToWire(error: unknown): WireError {
  if (error instanceof DomainError) {
    return {
      domain: true,
      slug: error.slug,
      detail: error.message,
      errors: error.errors,
      extensions: error.extensions,
    };
  }
  if (error instanceof Error) {
    return { domain: false, name: error.name, message: error.message, stack: error.stack };
  }
  return { domain: false, name: "Error", message: String(error) };
}

/** The error {@link errorToWire} was given, as a DomainError (or plain error) again. */
export function errorFromWire(wire: WireError): Error {
  if (wire.domain) {
    const { slug, detail, errors, extensions } = wire;
    return new DomainError(slug, { detail, errors, extensions });
  }
  const error = wire.name === "RangeError"
    ? new RangeError(wire.message)
    : wire.name === "TypeError"
    ? new TypeError(wire.message)
    : new Error(wire.message);
  if (wire.stack) error.stack = wire.stack;
  return error;
}
