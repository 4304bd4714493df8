/**
 * HTTP digest authentication (RFC 7616, MD5 and SHA-256, qop "auth") for SPARQL endpoints
 * that accept nothing else: Virtuoso's `/sparql-auth` and `/sparql-graph-crud-auth` answer
 * basic credentials with 401 and a `WWW-Authenticate: Digest` challenge.
 *
 * Written here because the npm digest clients wrap their own fetch (node-fetch, axios) and
 * the store's client must keep Deno's fetch (timeouts, the CA-trusting HTTP client); the
 * scheme itself is a dozen lines. A challenge is kept and reused with a growing nonce count,
 * so only the first request (and one after the server declares the nonce stale) costs an
 * extra round trip.
 */
import { createHash } from "node:crypto";

/** The parameters of a `Digest` challenge. */
interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  qop?: string;
  algorithm: string;
}

/** The challenge of a 401 answer's `WWW-Authenticate` header, if it offers digest. */
export function parseDigestChallenge(header: string | null): DigestChallenge | undefined {
  if (!header || !/^\s*Digest\s/i.test(header)) return undefined;
  const fields = new Map<string, string>();
  for (const match of header.replace(/^\s*Digest\s+/i, "").matchAll(/(\w+)=("([^"]*)"|[^,\s]*)/g)) {
    fields.set(match[1].toLowerCase(), match[3] ?? match[2]);
  }
  const realm = fields.get("realm");
  const nonce = fields.get("nonce");
  if (realm === undefined || nonce === undefined) return undefined;
  const qop = fields.get("qop")?.split(",").map((value) => value.trim()).includes("auth")
    ? "auth"
    : undefined;
  return {
    realm,
    nonce,
    opaque: fields.get("opaque"),
    qop,
    algorithm: fields.get("algorithm") ?? "MD5",
  };
}

/** Credentials answering one server's digest challenges. */
export class DigestCredentials {
  readonly #username: string;
  readonly #password: string;
  #challenge: DigestChallenge | undefined;
  #count = 0;

  constructor(username: string, password: string) {
    this.#username = username;
    this.#password = password;
  }

  /** Takes a new challenge (from a 401); false if it is not one this client can answer. */
  accept(header: string | null): boolean {
    const challenge = parseDigestChallenge(header);
    if (!challenge || !hashOf(challenge.algorithm)) return false;
    this.#challenge = challenge;
    this.#count = 0;
    return true;
  }

  /** The `Authorization` header for a request, once a challenge has been accepted. */
  authorization(method: string, url: string): string | undefined {
    const challenge = this.#challenge;
    if (!challenge) return undefined;
    const hash = hashOf(challenge.algorithm)!;
    const { pathname, search } = new URL(url);
    const uri = `${pathname}${search}`;
    const ha1 = hash(`${this.#username}:${challenge.realm}:${this.#password}`);
    const ha2 = hash(`${method}:${uri}`);
    const nc = (++this.#count).toString(16).padStart(8, "0");
    const cnonce = crypto.randomUUID().replaceAll("-", "");
    const response = challenge.qop
      ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${challenge.qop}:${ha2}`)
      : hash(`${ha1}:${challenge.nonce}:${ha2}`);
    const parts = [
      `username="${quoted(this.#username)}"`,
      `realm="${quoted(challenge.realm)}"`,
      `nonce="${quoted(challenge.nonce)}"`,
      `uri="${quoted(uri)}"`,
      `algorithm=${challenge.algorithm}`,
      `response="${response}"`,
    ];
    if (challenge.qop) parts.push(`qop=${challenge.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
    if (challenge.opaque !== undefined) parts.push(`opaque="${quoted(challenge.opaque)}"`);
    return `Digest ${parts.join(", ")}`;
  }
}

function hashOf(algorithm: string): ((text: string) => string) | undefined {
  const name = { "MD5": "md5", "SHA-256": "sha256" }[algorithm.toUpperCase()];
  if (!name) return undefined;
  return (text) => createHash(name).update(text, "utf8").digest("hex");
}

function quoted(value: string): string {
  return value.replace(/[\\"]/g, (character) => `\\${character}`);
}
