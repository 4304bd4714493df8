/**
 * The JWT verifier (src/http/oidc.ts) against a real OpenID provider on loopback
 * (tests/support/oidc_provider.ts, npm oidc-provider): the tokens are the provider's, issued
 * by the client credentials grant and signed with its keys, and the verifier fetches the
 * provider's JWKS. Every refusal is `unauthorized` with a reason of its own; a provider whose
 * keys cannot be fetched is `identity-provider-unavailable`.
 */
import { strict as assert } from "node:assert";
import { type OidcSettings, OidcVerifier } from "../../src/http/oidc.ts";
import { DomainError } from "../../src/errors/domain_error.ts";
import { type OidcTestProvider, startOidcProvider } from "../support/oidc_provider.ts";
import { freePort } from "../support/ports.ts";

const AUDIENCE = "https://rdf.test/api";
const IDENTITIES = [
  { id: "alice", groups: ["team-a"] },
  { id: "bob", groups: ["team-a-editors"] },
  { id: "carol", groups: [] },
];

function settings(provider: OidcTestProvider, overrides: Partial<OidcSettings> = {}) {
  return {
    issuer: provider.issuer,
    audience: AUDIENCE,
    jwksUrl: provider.jwksUrl,
    groupsClaim: "groups",
    clockSkewSeconds: 0,
    ...overrides,
  };
}

/** The error verify throws for a token, asserting its slug; it must never echo the token. */
async function failure(verifier: OidcVerifier, token: string, slug: string): Promise<string> {
  const error = await verifier.verify(token).then(
    () => assert.fail("the token was accepted"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof DomainError, `not a DomainError: ${error}`);
  assert.equal(error.slug, slug, error.message);
  assert.ok(!error.message.includes(token), "the reason echoes the token");
  return error.message;
}

/** A provider for one test, closed after it. */
async function withProvider(
  test: (provider: OidcTestProvider) => Promise<void>,
  options: Partial<Parameters<typeof startOidcProvider>[0]> = {},
) {
  const provider = await startOidcProvider({
    identities: IDENTITIES,
    audience: AUDIENCE,
    ...options,
  });
  try {
    await test(provider);
  } finally {
    await provider.close();
  }
}

Deno.test("a provider's token verifies with its subject and groups, flat or dotted", async () => {
  await withProvider(async (provider) => {
    const flat = new OidcVerifier(settings(provider));
    const dotted = new OidcVerifier(settings(provider, { groupsClaim: "realm_access.roles" }));
    const alice = await provider.token("alice");
    const identity = await flat.verify(alice);
    assert.equal(identity.subject, "alice");
    assert.deepEqual(identity.groups, ["team-a"]);
    assert.ok(identity.expiresAt! > Date.now() / 1000);
    assert.deepEqual((await dotted.verify(alice)).groups, ["team-a"]);
    const bob = await flat.verify(await provider.token("bob"));
    assert.deepEqual([bob.subject, bob.groups], ["bob", ["team-a-editors"]]);
    assert.deepEqual((await dotted.verify(await provider.token("carol"))).groups, []);
  });
});

Deno.test("an expired token is refused, saying when it expired", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider));
    const token = await provider.token("alice", { ttlSeconds: 1 });
    assert.equal((await verifier.verify(token)).subject, "alice");
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const reason = await failure(verifier, token, "unauthorized");
    assert.match(reason, /^The token expired at \d{4}-\d\d-\d\dT[\d:.]+Z/);
  });
});

Deno.test("a token for another audience is refused, naming the expected one", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider));
    const token = await provider.token("alice", { audience: "https://other.test/api" });
    assert.match(
      await failure(verifier, token, "unauthorized"),
      /meant for another audience \("https:\/\/other\.test\/api"\), not for "https:\/\/rdf\.test\/api"/,
    );
  });
});

Deno.test("a token of another issuer (with the same keys) is refused, naming the expected one", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider));
    const impostor = await startOidcProvider({
      identities: IDENTITIES,
      audience: AUDIENCE,
      issuer: "https://impostor.test",
      keys: provider.keys,
    });
    try {
      const reason = await failure(verifier, await impostor.token("alice"), "unauthorized");
      assert.ok(
        reason.includes(`not by the expected issuer "${provider.issuer}"`),
        reason,
      );
    } finally {
      await impostor.close();
    }
  });
});

Deno.test("a token signed with a key the provider does not publish is refused", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider));
    await verifier.verify(await provider.token("alice")); // the keys are cached now
    // The same issuer string, but keys of its own: a kid the verifier never saw.
    const other = await startOidcProvider({
      identities: IDENTITIES,
      audience: AUDIENCE,
      issuer: provider.issuer,
    });
    try {
      assert.match(
        await failure(verifier, await other.token("alice"), "unauthorized"),
        /signed with a key the identity provider does not publish \(unknown kid\)/,
      );
    } finally {
      await other.close();
    }
  });
});

Deno.test("a token whose signature bytes were changed is refused", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider));
    const [header, payload, signature] = (await provider.token("alice")).split(".");
    const bytes = Uint8Array.from(
      atob(signature.replace(/-/g, "+").replace(/_/g, "/")),
      (char) => char.charCodeAt(0),
    );
    bytes[10] ^= 0xff;
    bytes[100] ^= 0x01;
    const flipped = btoa(String.fromCharCode(...bytes)).replace(/=+$/, "")
      .replace(/\+/g, "-").replace(/\//g, "_");
    assert.match(
      await failure(verifier, `${header}.${payload}.${flipped}`, "unauthorized"),
      /^The token's signature does not verify\.$/,
    );
  });
});

Deno.test("a JWKS URL that cannot be fetched is identity-provider-unavailable, not a 500", async () => {
  await withProvider(async (provider) => {
    const token = await provider.token("alice");
    const unreachable = new OidcVerifier(
      settings(provider, { jwksUrl: `http://127.0.0.1:${freePort()}/jwks` }),
    );
    const reason = await failure(unreachable, token, "identity-provider-unavailable");
    assert.match(reason, /signing keys could not be fetched \(it cannot be reached\)/);
    const notJwks = new OidcVerifier(settings(provider, { jwksUrl: `${provider.url}/nowhere` }));
    assert.match(
      await failure(notJwks, token, "identity-provider-unavailable"),
      /could not be fetched/,
    );
    const error = await unreachable.verify(token).catch((error: DomainError) => error);
    assert.equal((error as DomainError).kind, "unavailable");
  });
});

Deno.test("a jwksFile written from the provider's /jwks verifies its tokens", async () => {
  await withProvider(async (provider) => {
    const file = await Deno.makeTempFile({ suffix: ".json" });
    try {
      const jwks = await (await fetch(provider.jwksUrl)).text();
      await Deno.writeTextFile(file, jwks);
      const verifier = new OidcVerifier(
        settings(provider, { jwksUrl: undefined, jwksFile: file }),
      );
      const identity = await verifier.verify(await provider.token("bob"));
      assert.deepEqual([identity.subject, identity.groups], ["bob", ["team-a-editors"]]);
      // A file is read once: a key the provider rotates in later is unknown to it.
      await provider.rotateKeys();
      assert.match(
        await failure(verifier, await provider.token("bob"), "unauthorized"),
        /unknown kid/,
      );
    } finally {
      await Deno.remove(file);
    }
  });
});

Deno.test("a token signed with a rotated-in key makes the verifier refetch the JWKS", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider, { jwksCooldownSeconds: 0 }));
    const before = await provider.token("alice");
    await verifier.verify(before); // fetches and caches the JWKS with the first key only
    const [oldKid] = provider.keys.map((key) => key.kid);
    const newKid = await provider.rotateKeys();
    const after = await provider.token("alice");
    const header = JSON.parse(atob(after.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")));
    assert.equal(header.kid, newKid, "the provider signs with the new key");
    assert.notEqual(newKid, oldKid);
    assert.equal((await verifier.verify(after)).subject, "alice");
    assert.equal((await verifier.verify(before)).subject, "alice", "the old key still verifies");
  });
});

Deno.test("within the cooldown an unknown kid does not refetch the JWKS", async () => {
  await withProvider(async (provider) => {
    const verifier = new OidcVerifier(settings(provider, { jwksCooldownSeconds: 60 }));
    await verifier.verify(await provider.token("alice"));
    await provider.rotateKeys();
    assert.match(
      await failure(verifier, await provider.token("alice"), "unauthorized"),
      /unknown kid/,
    );
  });
});
