/**
 * A real OpenID provider on loopback for tests: npm `oidc-provider`, in this Deno process
 * (through Deno's Node compatibility), so that the tokens a test sends are signed by an
 * identity provider and not by the test.
 *
 * Each test identity is a client of the provider with the client credentials grant: its
 * `client_id` is the identity's id, and the provider issues it a JWT access token for the
 * resource (the audience) it asks for, signed RS256 with the provider's key. The token's
 * `sub` is the client id (oidc-provider's rule for client credentials tokens); its groups are
 * in two claims, `groups` and `realm_access.roles` (Keycloak's place), the same list in both.
 * The token endpoint is `POST {issuer}/token`, the keys are `GET {issuer}/jwks`.
 *
 * What a test can make the provider do:
 * - a short-lived token: `token(id, { ttlSeconds })`, then wait;
 * - a token for another audience: `token(id, { audience })` (any absolute URI);
 * - another issuer that signs with the same keys: `startOidcProvider({ issuer, keys })`,
 *   `keys` being the first provider's `keys`;
 * - the same issuer with keys of its own (a key the verifier never saw): a second provider
 *   with `issuer` set to the first one's;
 * - a key rotation: `rotateKeys()` signs with a new key from then on and publishes it before
 *   the old ones.
 *
 * Start-up takes a few hundred milliseconds (a 2048-bit RSA key is generated).
 */
import Provider from "oidc-provider";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";

/** One caller of the service: a client of the provider, with its groups. */
export interface TestIdentity {
  id: string;
  groups: string[];
}

/** A running provider. */
export interface OidcTestProvider {
  /** The `iss` of its tokens (the `issuer` option, or its own URL). */
  issuer: string;
  /** Its own URL: `http://127.0.0.1:<port>`. */
  url: string;
  /** Where its public keys are: `{url}/jwks`. */
  jwksUrl: string;
  /** The audience (resource) a token is for unless the test asks for another. */
  audience: string;
  /** Its private signing keys (JWKs with kid), the one it signs with first. */
  keys: JWK[];
  /** An access token for the identity `id`, issued by the provider. */
  token(id: string, options?: { audience?: string; ttlSeconds?: number }): Promise<string>;
  /** Signs with a new key from now on, published beside the old ones; gives the new kid. */
  rotateKeys(): Promise<string>;
  close(): Promise<void>;
}

/** The header that carries a token request's lifetime (read by the provider's ttl). */
const TTL_HEADER = "x-test-token-ttl";
const DEFAULT_TTL_SECONDS = 300;

/** A new RS256 signing key as a private JWK, its kid the key's thumbprint. */
async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" };
}

/** oidc-provider's storage, in memory (its own development adapter warns when used). */
class MemoryAdapter {
  static #stores = new Map<string, Map<string, Record<string, unknown>>>();
  readonly #store: Map<string, Record<string, unknown>>;

  constructor(model: string) {
    const stores = MemoryAdapter.#stores;
    if (!stores.has(model)) stores.set(model, new Map());
    this.#store = stores.get(model)!;
  }

  upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    this.#store.set(id, payload);
    return Promise.resolve();
  }

  find(id: string): Promise<Record<string, unknown> | undefined> {
    return Promise.resolve(this.#store.get(id));
  }

  findByUserCode(code: string): Promise<Record<string, unknown> | undefined> {
    return Promise.resolve([...this.#store.values()].find((p) => p.userCode === code));
  }

  findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    return Promise.resolve([...this.#store.values()].find((p) => p.uid === uid));
  }

  consume(id: string): Promise<void> {
    const payload = this.#store.get(id);
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    return Promise.resolve();
  }

  destroy(id: string): Promise<void> {
    this.#store.delete(id);
    return Promise.resolve();
  }

  revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, payload] of this.#store) {
      if (payload.grantId === grantId) this.#store.delete(id);
    }
    return Promise.resolve();
  }
}

/** An oidc-provider instance for these identities, signing with `keys[0]`. */
function provider(
  issuer: string,
  identities: TestIdentity[],
  secrets: Map<string, string>,
  audience: string,
  keys: JWK[],
): Provider {
  const groupsOf = new Map(identities.map((identity) => [identity.id, identity.groups]));
  return new Provider(issuer, {
    adapter: MemoryAdapter,
    jwks: { keys: keys as never },
    clients: identities.map((identity) => ({
      client_id: identity.id,
      client_secret: secrets.get(identity.id)!,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_post",
    })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          audience: resource,
          scope: "api",
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    ttl: {
      ClientCredentials: (ctx: { get(name: string): string } | undefined) => {
        const asked = Number(ctx?.get(TTL_HEADER));
        return Number.isInteger(asked) && asked > 0 ? asked : DEFAULT_TTL_SECONDS;
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
      const groups = groupsOf.get(token.clientId ?? "") ?? [];
      return { groups, realm_access: { roles: groups } };
    },
  });
}

/** Starts a provider on a free loopback port. */
export async function startOidcProvider(options: {
  identities: TestIdentity[];
  /** The default resource: the `aud` of a token unless the test asks for another. */
  audience: string;
  /** The `iss` of its tokens; its own URL by default. */
  issuer?: string;
  /** Private JWKs to sign with (another provider's `keys`); a new key by default. */
  keys?: JWK[];
}): Promise<OidcTestProvider> {
  const secrets = new Map(options.identities.map((identity) => [
    identity.id,
    crypto.randomUUID(),
  ]));
  let keys = options.keys ? [...options.keys] : [await newSigningKey()];
  /** The running provider's request handler: replaced when the keys rotate. */
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    handle!(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = options.issuer ?? url;
  const start = () => {
    handle = provider(issuer, options.identities, secrets, options.audience, keys).callback();
  };
  start();

  return {
    issuer,
    url,
    jwksUrl: `${url}/jwks`,
    audience: options.audience,
    get keys() {
      return [...keys];
    },
    async token(id, tokenOptions = {}) {
      const secret = secrets.get(id);
      if (secret === undefined) throw new Error(`no test identity ${id}`);
      const headers: Record<string, string> = {};
      if (tokenOptions.ttlSeconds !== undefined) {
        headers[TTL_HEADER] = String(tokenOptions.ttlSeconds);
      }
      const response = await fetch(`${url}/token`, {
        method: "POST",
        headers,
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: id,
          client_secret: secret,
          resource: tokenOptions.audience ?? options.audience,
        }),
      });
      const body = await response.json();
      if (!response.ok || typeof body.access_token !== "string") {
        throw new Error(`the provider issued no token for ${id}: ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    async rotateKeys() {
      const key = await newSigningKey();
      keys = [key, ...keys];
      start();
      return key.kid!;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
