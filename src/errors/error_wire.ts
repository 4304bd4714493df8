/**
 * Errors across a thread boundary: a worker's {@link DomainError} arrives as the same kind,
 * slug, title, detail, field errors and extensions, so the HTTP edge answers exactly as if
 * the work had run on the request thread. Any other error keeps its message.
 */
import {
  BackendFailed,
  Conflict,
  DomainError,
  type ErrorKind,
  type FieldError,
  InsufficientStorage,
  InternalFault,
  InvalidInput,
  NotFound,
  NotImplemented,
  PreconditionFailed,
  Timeout,
  TooLarge,
  Unavailable,
  Unprocessable,
  UnsupportedMedia,
} from "./domain_error.ts";

/** An error as plain data. */
export type WireError =
  | {
    domain: true;
    kind: ErrorKind;
    slug: string;
    title: string;
    detail: string;
    errors?: FieldError[];
    extensions: Record<string, unknown>;
  }
  | { domain: false; name: string; message: string; stack?: string };

const CLASS_OF_KIND: Record<
  ErrorKind,
  new (...details: ConstructorParameters<typeof InvalidInput>) => DomainError
> = {
  "invalid-input": InvalidInput,
  "not-found": NotFound,
  "conflict": Conflict,
  "precondition-failed": PreconditionFailed,
  "too-large": TooLarge,
  "unsupported-media": UnsupportedMedia,
  "unprocessable": Unprocessable,
  "backend-failed": BackendFailed,
  "unavailable": Unavailable,
  "timeout": Timeout,
  "not-implemented": NotImplemented,
  "insufficient-storage": InsufficientStorage,
  "internal": InternalFault,
};

/** The error as data that `postMessage` keeps whole. */
export function errorToWire(error: unknown): WireError {
  if (error instanceof DomainError) {
    return {
      domain: true,
      kind: error.kind,
      slug: error.slug,
      title: error.title,
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

/** The error {@link errorToWire} was given, as an instance of its class again. */
export function errorFromWire(wire: WireError): Error {
  if (wire.domain) {
    const Kind = CLASS_OF_KIND[wire.kind];
    return new Kind(wire.slug, wire.title, wire.detail, wire.errors, wire.extensions);
  }
  const error = wire.name === "RangeError"
    ? new RangeError(wire.message)
    : wire.name === "TypeError"
    ? new TypeError(wire.message)
    : new Error(wire.message);
  if (wire.stack) error.stack = wire.stack;
  return error;
}
