/**
 * The 415 `unsupported-media-type` problem of a request body whose Content-Type a route does
 * not take: one wording everywhere, naming what came and what the route takes, so a client
 * reads the same sentence whichever route refused it.
 */
import { DomainError } from "../errors/domain_error.ts";
import type { BodyContract } from "./route_contract.ts";

/** What a refused body came as and what the route takes instead. */
export interface UnsupportedBody {
  /** The request's Content-Type as sent; undefined or empty when it had none. */
  given: string | undefined;
  /** The media types the route takes, in the order to offer them. */
  accepted: readonly string[];
  /** A sentence after the list: another way to send the body, or what was meant. */
  hint?: string;
  /**
   * The name of the uploaded file whose type is refused (`given` is then the file part's
   * type); unset when it is the request's own Content-Type.
   */
  file?: string;
}

/** The problem for a body the route does not take, pointing at `Content-Type` (or the file). */
export function unsupportedMediaType(
  { given, accepted, hint, file }: UnsupportedBody,
): DomainError {
  const shown = given ? JSON.stringify(given) : "(none)";
  const of = file === undefined ? "" : ` of the file ${JSON.stringify(file)}`;
  const choice = accepted.length === 1 ? accepted[0] : `one of: ${accepted.join(", ")}`;
  return new DomainError("unsupported-media-type", {
    detail: `Content-Type ${shown}${of} is not accepted here; use ${choice}.` +
      (hint ? ` ${hint}` : ""),
    errors: [{ path: file === undefined ? "Content-Type" : "file", message: "unsupported" }],
  });
}

/** The media types a route's contract says its body may have, in the contract's order. */
export function contractBodyTypes(contract: { body?: BodyContract }): string[] {
  return Object.keys(contract.body?.content ?? {});
}
