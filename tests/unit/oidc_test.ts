/**
 * The JWT verifier's own logic, with keys made here and a local JWKS file (no provider): the
 * groups claim's dotted path, what looks like a JWT, the algorithms refused before any key is
 * looked up (`none`, HMAC), and each reason a token is refused. The same refusals against a
 * real OpenID provider are tests/integration/oidc_verifier_test.ts.
 */
import { strict as assert } from "node:assert";
import { CompactSign, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { groupsAt, looksLikeJwt, type OidcSettings, OidcVerifier } from "../../src/http/oidc.ts";
import { DomainError } from "../../src/errors/domain_error.ts";

const ISSUER = "https://idp.test/realms/main";
const AUDIENCE = "https://rdf.test/api";

const signing = await generateKeyPair("RS256", { extractable: true });
const other = await generateKeyPair("RS256", { extractable: true });
const jwksFile = await Deno.makeTempFile({ suffix: ".json" });
await Deno.writeTextFile(
  jwksFile,
  JSON.stringify({
    keys: [{ ...await exportJWK(signing.publicKey), kid: "k1", alg: "RS256", use: "sig" }],
  }),
);

function settings(overrides: Partial<OidcSettings> = {}): OidcSettings {
  return {
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksFile,
    groupsClaim: "groups",
    clockSkewSeconds: 0,
    ...overrides,
  };
}

const verifier = new OidcVerifier(settings());

/** A token with the usual claims, `claims` over them, signed with `key` (kid k1 by default). */
function token(
  claims: JWTPayload = {},
  options: { key?: CryptoKey; kid?: string; alg?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: "alice",
    iat: now,
    exp: now + 300,
    groups: ["team-a"],
    ...claims,
  }).setProtectedHeader({ alg: options.alg ?? "RS256", kid: options.kid ?? "k1" })
    .sign(options.key ?? signing.privateKey);
}

/** The base64url of a JSON value. */
function b64(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** The reason verify refuses a token with, asserting it is `unauthorized`. */
async function refusal(jwt: string, by = verifier): Promise<string> {
  const error = await by.verify(jwt).then(
    () => assert.fail("the token was accepted"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof DomainError, `not a DomainError: ${error}`);
  assert.equal(error.slug, "unauthorized");
  assert.ok(!error.message.includes(jwt), "the reason echoes the token");
  return error.message;
}

Deno.test("groupsAt follows a dotted path, takes one string as one group, and none when absent", () => {
  const payload = {
    groups: ["a", "b"],
    realm_access: { roles: ["r1"] },
    role: "solo",
    "https://example.org/groups": ["x"],
    nested: { list: [1, 2] },
  };
  assert.deepEqual(groupsAt(payload, "groups"), ["a", "b"]);
  assert.deepEqual(groupsAt(payload, "realm_access.roles"), ["r1"]);
  assert.deepEqual(groupsAt(payload, "role"), ["solo"]);
  assert.deepEqual(groupsAt(payload, "https://example.org/groups"), ["x"]);
  assert.deepEqual(groupsAt(payload, "missing"), []);
  assert.deepEqual(groupsAt(payload, "realm_access.missing"), []);
  assert.deepEqual(groupsAt(payload, "groups.0"), [], "a path does not index into a list");
  assert.deepEqual(groupsAt(payload, "role.length"), [], "a path does not step into a string");
  assert.equal(groupsAt(payload, "nested.list"), undefined);
  assert.equal(groupsAt(payload, "realm_access"), undefined);
});

Deno.test("looksLikeJwt: three base64url segments whose header is JSON with an alg", async () => {
  assert.ok(looksLikeJwt(await token()));
  assert.ok(looksLikeJwt(`${b64({ alg: "none" })}.${b64({ sub: "x" })}.`), "unsigned");
  assert.ok(!looksLikeJwt("s3cr3t-configured-token"));
  assert.ok(!looksLikeJwt("abc.def.ghi"), "the header is not JSON");
  assert.ok(!looksLikeJwt(`${b64({ typ: "JWT" })}.${b64({})}.c2ln`), "no alg");
  assert.ok(!looksLikeJwt(`${b64({ alg: "RS256" })}.${b64({})}`), "two segments");
  assert.ok(!looksLikeJwt(`${b64({ alg: "RS256" })}.${b64({})}.c2ln.eHh4`), "four segments");
  assert.ok(!looksLikeJwt(`${b64({ alg: "RS256" })}.${b64({})}.c2l+`), "not base64url");
  assert.ok(!looksLikeJwt(`${b64(["alg"])}.${b64({})}.c2ln`), "the header is not an object");
  assert.ok(!looksLikeJwt(""));
});

Deno.test("a valid token gives its subject, groups (flat or dotted claim) and expiry", async () => {
  const jwt = await token({ realm_access: { roles: ["team-a-editors"] } });
  const identity = await verifier.verify(jwt);
  assert.equal(identity.subject, "alice");
  assert.deepEqual(identity.groups, ["team-a"]);
  assert.equal(typeof identity.expiresAt, "number");
  const dotted = new OidcVerifier(settings({ groupsClaim: "realm_access.roles" }));
  assert.deepEqual((await dotted.verify(jwt)).groups, ["team-a-editors"]);
  assert.deepEqual((await verifier.verify(await token({ groups: undefined }))).groups, []);
  const audiences = await token({ aud: ["https://other.test/", AUDIENCE] });
  assert.equal((await verifier.verify(audiences)).subject, "alice", "aud array holding it");
});

Deno.test("alg none and HMAC tokens are refused before any key is looked up", async () => {
  const unsigned = `${b64({ alg: "none" })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: "x" })}.`;
  assert.match(await refusal(unsigned), /unsigned \(alg "none"\)/);
  const hmac = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: "x" })
    .setProtectedHeader({ alg: "HS256", kid: "k1" })
    .sign(new TextEncoder().encode("a shared secret of at least 32 bytes!"));
  assert.match(await refusal(hmac), /algorithm "HS256" is not accepted; only asymmetric/);
});

Deno.test("each refusal names its reason", async () => {
  const now = Math.floor(Date.now() / 1000);
  assert.match(
    await refusal(await token({ exp: now - 60, iat: now - 120 })),
    /^The token expired at \d{4}-\d\d-\d\dT[\d:.]+Z/,
  );
  assert.match(await refusal(await token({ nbf: now + 600 })), /^The token is not valid yet/);
  assert.match(
    await refusal(await token({ aud: "https://other.test/" })),
    /another audience \("https:\/\/other\.test\/"\), not for "https:\/\/rdf\.test\/api"/,
  );
  assert.match(await refusal(await token({ aud: undefined })), /names no audience/);
  assert.match(
    await refusal(await token({ iss: "https://evil.test/" })),
    /issued by "https:\/\/evil\.test\/", not by the expected issuer "https:\/\/idp\.test/,
  );
  assert.match(await refusal(await token({ sub: undefined })), /names no subject/);
  assert.match(await refusal(await token({ sub: "" })), /names no subject/);
  assert.match(
    await refusal(await token({ groups: { a: 1 } })),
    /groups claim "groups" is neither a string nor a list of strings/,
  );
  assert.match(
    await refusal(await token({}, { key: other.privateKey })),
    /signature does not verify/,
  );
  assert.match(
    await refusal(await token({}, { key: other.privateKey, kid: "k2" })),
    /key the identity provider does not publish \(unknown kid\)/,
  );
  assert.match(await refusal("abc.def.ghi"), /not a well-formed JWT/);
  // Signed, but what is signed is no claims set.
  const notClaims = await new CompactSign(new TextEncoder().encode("not json"))
    .setProtectedHeader({ alg: "RS256", kid: "k1" }).sign(signing.privateKey);
  assert.match(await refusal(notClaims), /not a well-formed JWT/);
});

Deno.test("the clock skew tolerates a token just expired", async () => {
  const now = Math.floor(Date.now() / 1000);
  const lenient = new OidcVerifier(settings({ clockSkewSeconds: 120 }));
  assert.equal((await lenient.verify(await token({ exp: now - 60 }))).subject, "alice");
  assert.match(await refusal(await token({ exp: now - 60 })), /expired/);
});

Deno.test("a verifier needs exactly one readable key source", () => {
  assert.throws(() => new OidcVerifier(settings({ jwksFile: undefined })), /exactly one/);
  assert.throws(
    () => new OidcVerifier(settings({ jwksUrl: "http://127.0.0.1:1/jwks" })),
    /exactly one/,
  );
  assert.throws(
    () => new OidcVerifier(settings({ jwksFile: `${jwksFile}.missing` })),
    /not a readable JSON Web Key Set/,
  );
});
