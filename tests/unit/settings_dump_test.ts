import { strict as assert } from "node:assert";
import { parse } from "yaml";
import { parseConfigText } from "../../src/config/load.ts";
import { dumpSettings } from "../../src/tools/settings_dump.ts";
import {
  isSecretName,
  MASK,
  maskSecrets,
  maskUrlCredentials,
} from "../../src/config/secret_masking.ts";

const SECRETS = {
  token: "admin-token-0123456789abcdef",
  readerToken: "reader-token-fedcba9876543210",
  storePassword: "store-pw-Xq81",
  endpointPassword: "endpoint-pw-Lk22",
  openSearchPassword: "opensearch-pw-Zr55",
  urlPassword: "url-pw-Mn73",
  environmentToken: "editor-from-env-Qw90",
};

const YAML = `
service:
  store:
    backend: sparql
    sparql:
      queryUrl: http://fuseki.example:3030/ds/query
      updateUrl: http://fuseki.example:3030/ds/update
      graphStoreUrl: http://fuseki.example:3030/ds/data
      username: store-user
      password: ${SECRETS.storePassword}
      caFile: /etc/rcs/store-ca.pem
  search:
    opensearch:
      node: https://search-user:${SECRETS.urlPassword}@opensearch.example:9200,https://os2.example:9200
      username: admin
      password: \${OS_PASSWORD}
      caFile: /etc/rcs/opensearch-ca.pem
  security:
    tokens:
      - { name: ops, token: ${SECRETS.token}, role: admin }
      - { name: viewer, token: ${SECRETS.readerToken}, role: reader }
  sparqlEndpoints:
    - id: wikidata-mirror
      name: Mirror
      url: http://mirror.example/sparql
      username: reader
      password: ${SECRETS.endpointPassword}
workspaces:
  - uri: https://data.example.org/workspace/demo
    name: Demo
    collections:
      - uri: https://data.example.org/collection/documents
        name: Documents
        index: documents
`;

function loadConfig() {
  return parseConfigText(YAML, "test", (name) => {
    if (name === "OS_PASSWORD") return SECRETS.openSearchPassword;
    if (name === "SERVICE_EDITOR_TOKEN") return SECRETS.environmentToken;
    return undefined;
  });
}

Deno.test("settings dump: no secret of the configuration appears, each is masked", () => {
  const dump = dumpSettings(loadConfig());
  for (const [label, secret] of Object.entries(SECRETS)) {
    assert.ok(!dump.includes(secret), `${label} leaked into the dump:\n${dump}`);
  }
  assert.ok(dump.includes(MASK));
  const parsed = parse(dump);
  const service = parsed.service;
  assert.equal(service.store.sparql.password, MASK);
  assert.equal(service.search.opensearch.password, MASK);
  assert.equal(service.sparqlEndpoints[0].password, MASK);
  assert.deepEqual(
    service.security.tokens.map((t: Record<string, string>) => [t.name, t.token, t.role]),
    [["ops", MASK, "admin"], ["viewer", MASK, "reader"], ["SERVICE_EDITOR_TOKEN", MASK, "editor"]],
  );
  assert.deepEqual(service.search.opensearch.node, [
    `https://search-user:${MASK}@opensearch.example:9200`,
    "https://os2.example:9200",
  ]);
});

Deno.test("settings dump: everything that is not secret is shown as configured", () => {
  const config = loadConfig();
  const parsed = parse(dumpSettings(config));
  assert.equal(parsed.service.store.sparql.username, "store-user");
  assert.equal(parsed.service.store.sparql.queryUrl, "http://fuseki.example:3030/ds/query");
  assert.equal(parsed.service.sparqlEndpoints[0].username, "reader");
  // A CA file holds public certificates: its path is not a secret.
  assert.equal(parsed.service.store.sparql.caFile, "/etc/rcs/store-ca.pem");
  assert.equal(parsed.service.search.opensearch.caFile, "/etc/rcs/opensearch-ca.pem");
  assert.equal(parsed.service.http.maxBodyBytes, config.service.http.maxBodyBytes);
  assert.equal(parsed.service.query.timeoutMs, config.service.query.timeoutMs);
  assert.equal(parsed.workspaces[0].collections[0].uri, config.workspaces[0].collections[0].uri);
});

Deno.test("settings dump: unset secrets stay unset rather than looking configured", () => {
  const config = parseConfigText("service: {}\n", "test", () => undefined);
  const parsed = parse(dumpSettings(config));
  assert.equal(parsed.service.store.sparql.password, undefined);
  assert.deepEqual(parsed.service.security.tokens, []);
});

Deno.test("secret names: masked by rule, so new settings need no list of paths", () => {
  for (const name of ["password", "Password", "sparqlPassword", "secret", "client_secret"]) {
    assert.ok(isSecretName(name), name);
  }
  for (const name of ["token", "accessToken", "apiKey", "api-key", "credentials", "passwd"]) {
    assert.ok(isSecretName(name), name);
  }
  for (const name of ["tokens", "username", "name", "node", "url", "maxTokens", "tokenUrl"]) {
    assert.ok(!isSecretName(name), name);
  }
  const masked = maskSecrets({
    future: { clientSecret: "s1", apiKey: "k1", credentials: { user: "u", pass: "p" } },
    list: [{ accessToken: "t1", label: "kept" }],
    count: 3,
    enabled: true,
  });
  assert.deepEqual(masked, {
    future: { clientSecret: MASK, apiKey: MASK, credentials: MASK },
    list: [{ accessToken: MASK, label: "kept" }],
    count: 3,
    enabled: true,
  });
});

Deno.test("URL credentials: user info and secret query parameters are masked anywhere", () => {
  assert.equal(maskUrlCredentials("http://u:p@h/x"), `http://u:${MASK}@h/x`);
  // An unencoded @ in a password: everything up to the last @ of the authority is hidden.
  assert.equal(maskUrlCredentials("http://u:p@ss@h:1/x"), `http://u:${MASK}@h:1/x`);
  assert.equal(maskUrlCredentials("https://ghp_abc123@github.com/"), `https://${MASK}@github.com/`);
  assert.equal(
    maskUrlCredentials("SERVICE <http://a:b@one/sparql> { } # and http://c:d@two/"),
    `SERVICE <http://a:${MASK}@one/sparql> { } # and http://c:${MASK}@two/`,
  );
  assert.equal(
    maskUrlCredentials("https://h/q?x=1&api_key=abc&token=def#frag"),
    `https://h/q?x=1&api_key=${MASK}&token=${MASK}#frag`,
  );
  assert.equal(maskUrlCredentials("mailto:someone@example.org"), "mailto:someone@example.org");
  assert.equal(maskUrlCredentials("http://example.org/a@b"), "http://example.org/a@b");
  assert.deepEqual(maskSecrets({ "http://u:p@h/ctx": "./ctx.json" }), {
    [`http://u:${MASK}@h/ctx`]: "./ctx.json",
  });
});
