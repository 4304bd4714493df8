/**
 * JWT bearer tokens from an OpenID Connect provider (`service.security.oidc`): the signature
 * against the provider's published keys (its JWKS, fetched and cached, or a local file), then
 * issuer, audience, expiry and not-before, then the subject and the groups claim.
 *
 * Only asymmetric signatures are accepted (RS*, PS*, ES*, EdDSA): an unsigned token
 * (`alg: none`) or an HMAC one (whose key would have to be shared with every verifier) is
 * refused before any key is looked up. Every refusal is `unauthorized` with a reason of its
 * own (expired, wrong audience, unknown key, ...), so a caller can tell what to fix; a
 * provider whose keys cannot be fetched is `identity-provider-unavailable` (503), never a 500.
 * The token itself is never logged or echoed: a reason names claims, never the token.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from "jose";
import { DomainError } from "../errors/domain_error.ts";

/** How tokens are verified: `service.security.oidc`. */
export interface OidcSettings {
  /** The expected `iss`. */
  issuer: string;
  /** The expected `aud`: a token whose `aud` is it, or an array that holds it, passes. */
  audience: string;
  /** The provider's JWKS, fetched and cached (refetched for an unknown `kid`, with a cooldown). */
  jwksUrl?: string;
  /** A local JWKS JSON file instead of `jwksUrl` (read once, at construction). */
  jwksFile?: string;
  /**
   * Where the groups are: a claim name or a dotted path into the payload (`groups`,
   * `realm_access.roles`); its value a list of strings, or one string. A claim whose own
   * name holds dots (`https://example.org/groups`) is taken whole when the payload has it.
   */
  groupsClaim: string;
  /** Tolerance for `exp`, `nbf` and `iat`, in seconds. */
  clockSkewSeconds: number;
  /** How long after a fetch of `jwksUrl` an unknown `kid` may not refetch it; 30 s by default. */
  jwksCooldownSeconds?: number;
  /** How long a fetch of `jwksUrl` may take; 5 s by default. */
  jwksTimeoutSeconds?: number;
}

/** Who a verified token names. */
export interface JwtIdentity {
  /** The `sub` claim. */
  subject: string;
  /** The groups claim's strings; none when the token has no such claim. */
  groups: string[];
  /** The `exp` claim (seconds since the epoch), when the token has one. */
  expiresAt?: number;
}

/** The signature algorithms accepted: asymmetric only. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The decoded protected header of a compact JWS, or undefined when it is not one. */
function headerOf(token: string): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || !BASE64URL.test(parts[0]) || !BASE64URL.test(parts[1])) {
    return undefined;
  }
  // The signature is empty in an unsigned token (`alg: none`), which verify refuses by name.
  if (parts[2] !== "" && !BASE64URL.test(parts[2])) return undefined;
  try {
    const text = atob(parts[0].replace(/-/g, "+").replace(/_/g, "/"));
    const header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(text, (char) => char.charCodeAt(0)),
    ));
    return header !== null && typeof header === "object" && !Array.isArray(header)
      ? header
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a bearer token is a JWT rather than a configured token: three base64url segments
 * (the last may be empty: an unsigned token, refused by {@link OidcVerifier.verify}) whose
 * first decodes to a JSON object with an `alg`.
 */
export function looksLikeJwt(token: string): boolean {
  const header = headerOf(token);
  return typeof header?.alg === "string" && header.alg !== "";
}

/**
 * The groups a payload's claim names: `path` whole when the payload has a claim of that name,
 * else followed by its dots. None when there is no such claim; undefined when its value is
 * neither a string nor a list of strings.
 */
export function groupsAt(payload: Record<string, unknown>, path: string): string[] | undefined {
  let value: unknown;
  if (Object.hasOwn(payload, path)) value = payload[path];
  else {
    value = payload;
    for (const step of path.split(".")) {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        value = undefined;
        break;
      }
      value = Object.hasOwn(value, step) ? (value as Record<string, unknown>)[step] : undefined;
    }
  }
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((group) => typeof group === "string")) {
    return [...value];
  }
  return undefined;
}

/** A refusal of the token: 401 with the reason. */
function refused(detail: string): DomainError {
  return new DomainError("unauthorized", { detail });
}

/** A seconds-since-epoch claim as an ISO timestamp, or undefined when it is not a number. */
function when(seconds: unknown): string | undefined {
  return typeof seconds === "number" && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString()
    : undefined;
}

/** Thrown by the key lookup when the provider's keys cannot be had: not the token's fault. */
class KeysUnavailable extends Error {}

/** Verifies JWT bearer tokens against one provider's keys, issuer and audience. */
export class OidcVerifier {
  readonly #settings: OidcSettings;
  readonly #keys: JWTVerifyGetKey;
  readonly #options: JWTVerifyOptions;

  constructor(settings: OidcSettings) {
    if ((settings.jwksUrl === undefined) === (settings.jwksFile === undefined)) {
      throw new Error("OIDC settings need exactly one of jwksUrl and jwksFile");
    }
    this.#settings = settings;
    this.#options = {
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: settings.clockSkewSeconds,
      algorithms: ALGORITHMS,
    };
    if (settings.jwksUrl !== undefined) {
      const remote = createRemoteJWKSet(new URL(settings.jwksUrl), {
        cooldownDuration: (settings.jwksCooldownSeconds ?? 30) * 1000,
        timeoutDuration: Math.round((settings.jwksTimeoutSeconds ?? 5) * 1000),
      });
      this.#keys = async (header, token) => {
        try {
          return await remote(header, token);
        } catch (error) {
          // No key for the token's kid (even after a refetch) is the token's fault; several
          // matching keys are tried in turn by verify; anything else is the fetch's.
          if (
            error instanceof errors.JWKSNoMatchingKey ||
            error instanceof errors.JWKSMultipleMatchingKeys ||
            error instanceof errors.JOSENotSupported
          ) throw error;
          throw new KeysUnavailable(unavailableReason(error), { cause: error });
        }
      };
    } else {
      const path = settings.jwksFile!;
      let jwks: JSONWebKeySet;
      try {
        jwks = JSON.parse(Deno.readTextFileSync(path));
        this.#keys = createLocalJWKSet(jwks);
      } catch (error) {
        throw new Error(
          `OIDC jwksFile ${path} is not a readable JSON Web Key Set: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { cause: error },
        );
      }
    }
  }

  /** The identity, or throws DomainError("unauthorized", { detail: <reason> }). */
  async verify(token: string): Promise<JwtIdentity> {
    const header = headerOf(token);
    if (header === undefined || typeof header.alg !== "string") {
      throw refused("The bearer token is not a well-formed JWT.");
    }
    const alg = header.alg;
    if (alg.toLowerCase() === "none") {
      throw refused('The token is unsigned (alg "none"); only signed tokens are accepted.');
    }
    if (!ALGORITHMS.includes(alg)) throw refused(algorithmRefused(alg));
    const payload = await this.#verified(token);
    const subject = payload.sub;
    if (typeof subject !== "string" || subject === "") {
      throw refused("The token names no subject (its sub claim is missing or empty).");
    }
    const groups = groupsAt(payload, this.#settings.groupsClaim);
    if (groups === undefined) {
      throw refused(
        `The token's groups claim "${this.#settings.groupsClaim}" is neither a string nor a list of strings.`,
      );
    }
    return {
      subject,
      groups,
      ...(typeof payload.exp === "number" ? { expiresAt: payload.exp } : {}),
    };
  }

  /** The payload of a token whose signature and registered claims check out. */
  async #verified(token: string): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, this.#keys, this.#options)).payload;
    } catch (error) {
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        return await this.#verifiedByAnyOf(token, error);
      }
      throw this.#reason(error);
    }
  }

  /** A token without a `kid` that several keys could have signed: the first that verifies. */
  async #verifiedByAnyOf(
    token: string,
    candidates: errors.JWKSMultipleMatchingKeys,
  ): Promise<JWTPayload> {
    for await (const key of candidates) {
      try {
        return (await jwtVerify(token, key, this.#options)).payload;
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        throw this.#reason(error);
      }
    }
    throw this.#reason(new errors.JWSSignatureVerificationFailed());
  }

  /** What a failure of jose's verification means, as the DomainError to throw. */
  #reason(error: unknown): unknown {
    const { issuer, audience, clockSkewSeconds } = this.#settings;
    if (error instanceof KeysUnavailable) {
      return new DomainError("identity-provider-unavailable", {
        detail: `The identity provider's signing keys could not be fetched (${error.message}); ` +
          "the token cannot be checked. Try again later.",
        extensions: { retryAfter: 5 },
        cause: error.cause,
      });
    }
    if (error instanceof errors.JWTExpired) {
      const at = when(error.payload.exp);
      return refused(
        at === undefined
          ? "The token has expired."
          : `The token expired at ${at} (clock skew allowed: ${clockSkewSeconds} s).`,
      );
    }
    if (error instanceof errors.JWTClaimValidationFailed) {
      const missing = error.reason === "missing";
      switch (error.claim) {
        case "aud":
          return refused(
            missing
              ? `The token names no audience; it must be meant for "${audience}".`
              : `The token is meant for another audience (${
                JSON.stringify(error.payload.aud)
              }), not for "${audience}".`,
          );
        case "iss":
          return refused(
            missing
              ? `The token names no issuer; it must be issued by "${issuer}".`
              : `The token was issued by ${
                JSON.stringify(error.payload.iss)
              }, not by the expected issuer "${issuer}".`,
          );
        case "nbf": {
          const at = when(error.payload.nbf);
          return refused(
            error.reason === "invalid" || at === undefined
              ? "The token's nbf claim is not a number."
              : `The token is not valid yet: not before ${at} (clock skew allowed: ${clockSkewSeconds} s).`,
          );
        }
        default:
          return refused(
            `The token's ${error.claim} claim is ${missing ? "missing" : "not valid"}.`,
          );
      }
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return refused("The token's signature does not verify.");
    }
    if (error instanceof errors.JWKSNoMatchingKey) {
      return refused(
        "The token is signed with a key the identity provider does not publish (unknown kid).",
      );
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      return refused(algorithmRefused(undefined));
    }
    if (
      error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid ||
      error instanceof errors.JOSEError
    ) {
      return refused("The bearer token is not a well-formed JWT.");
    }
    return error;
  }
}

/** The refusal of an algorithm that is not an asymmetric signature. */
function algorithmRefused(alg: string | undefined): string {
  const named = alg === undefined ? "The token's algorithm" : `The token's algorithm "${alg}"`;
  return `${named} is not accepted; only asymmetric signatures are (RS*, PS*, ES*, EdDSA).`;
}

/** Why the provider's keys could not be had, in a few words (no URL: clients read this). */
function unavailableReason(error: unknown): string {
  if (error instanceof errors.JWKSTimeout) return "it did not answer in time";
  if (error instanceof errors.JWKSInvalid) return "its answer is not a JSON Web Key Set";
  if (error instanceof errors.JOSEError) return "its answer was not a 200 with a key set";
  if (error instanceof TypeError) return "it cannot be reached";
  return "the fetch failed";
}
