import { strict as assert } from "node:assert";
import { join } from "node:path";
import { ConfigError, findConfigFile, loadConfig, parseConfigText } from "../../src/config/load.ts";
import { BUILT_IN_CUSTOMER_YML } from "../../src/config/defaults.ts";
import { substituteEnv } from "../../src/config/substitute.ts";
import { readCaCertificates } from "../../src/config/ca_file.ts";
import { makeTestCertificates } from "../support/tls.ts";

const noEnv = () => undefined;
const envOf = (values: Record<string, string>) => (name: string) => values[name];

Deno.test("the built-in defaults are the shipped customer.yml, word for word", () => {
  const shipped = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
  assert.equal(BUILT_IN_CUSTOMER_YML, shipped);
});

Deno.test("the shipped file gives the documented defaults", () => {
  const config = parseConfigText(BUILT_IN_CUSTOMER_YML, "test", noEnv);
  assert.equal(config.service.http.host, "127.0.0.1");
  assert.equal(config.service.http.port, 8080);
  assert.equal(config.service.http.maxBodyBytes, 16777216);
  assert.equal(config.service.data.dir, "./data");
  assert.equal(config.service.store.backend, "embedded");
  assert.equal(config.service.store.sparql.queryUrl, undefined);
  assert.equal(config.service.search.query.maxResultsLimit, 10000);
  assert.equal(config.service.search.query.maxWindow, 10000);
  assert.equal(config.workspaces[0].collections[0].index, "documents");
});

Deno.test("environment variables set typed values with no file at all", () => {
  const config = parseConfigText(
    BUILT_IN_CUSTOMER_YML,
    "test",
    envOf({
      SERVICE_HTTP_PORT: "9090",
      SERVICE_ES_MAX_RESULTS: "50",
      SERVICE_ES_MAX_WINDOW: "70",
      SERVICE_SEARCH_BACKEND: "opensearch",
      SERVICE_OPENSEARCH_INDEX_PREFIX: "t-",
    }),
  );
  assert.equal(config.service.http.port, 9090);
  assert.equal(config.service.search.query.maxResultsLimit, 50);
  assert.equal(config.service.search.query.maxWindow, 70);
  assert.equal(config.service.search.backend, "opensearch");
  assert.equal(config.service.search.opensearch.indexPrefix, "t-");
});

Deno.test("references work anywhere in a value and ${VAR} without default is required", () => {
  assert.deepEqual(
    substituteEnv({ a: ["x-${A}-${B:b}-y"] }, envOf({ A: "1" })),
    { a: ["x-1-b-y"] },
  );
  assert.throws(
    () => parseConfigText("service:\n  http:\n    host: ${NEEDED_HOST}\n", "f.yml", noEnv),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes("service.http.host") && error.message.includes("NEEDED_HOST"),
  );
});

Deno.test("a bad value names its key path and the reason", () => {
  assert.throws(
    () => parseConfigText("service:\n  http:\n    port: eighty\n", "f.yml", noEnv),
    (error: unknown) => error instanceof ConfigError && /service\.http\.port/.test(error.message),
  );
  assert.throws(
    () =>
      parseConfigText(
        "workspaces:\n  - uri: not an iri\n    name: W\n",
        "f.yml",
        noEnv,
      ),
    (error: unknown) =>
      error instanceof ConfigError && error.message.includes("workspaces.0.uri") &&
      error.message.includes("absolute IRI"),
  );
});

Deno.test("a YAML syntax error names the line", () => {
  assert.throws(
    () => parseConfigText("service:\n  http: [unclosed\n", "f.yml", noEnv),
    (error: unknown) => error instanceof ConfigError && /line \d+/.test(error.message),
  );
});

Deno.test("the sparql backend requires its three URLs", () => {
  assert.throws(
    () => parseConfigText(BUILT_IN_CUSTOMER_YML, "t", envOf({ SERVICE_STORE_BACKEND: "sparql" })),
    (error: unknown) =>
      error instanceof ConfigError && error.message.includes("service.store.sparql.queryUrl"),
  );
});

Deno.test("SERVICE_*_TOKEN variables add one token each, beside the configured ones", () => {
  const yaml = BUILT_IN_CUSTOMER_YML.replace(
    "    tokens: []",
    "    tokens:\n      - { name: ops, token: configured-token-0123, role: admin }",
  );
  const config = parseConfigText(
    yaml,
    "t",
    envOf({
      SERVICE_ADMIN_TOKEN: "admin-from-env-0123456",
      SERVICE_READER_TOKEN: "reader-from-env-012345",
      SERVICE_EDITOR_TOKEN: "",
    }),
  );
  assert.deepEqual(config.service.security.tokens, [
    { name: "ops", token: "configured-token-0123", role: "admin" },
    { name: "SERVICE_ADMIN_TOKEN", token: "admin-from-env-0123456", role: "admin" },
    { name: "SERVICE_READER_TOKEN", token: "reader-from-env-012345", role: "reader" },
  ]);
});

Deno.test("a short token from the environment is a configuration error naming it", () => {
  assert.throws(
    () => parseConfigText(BUILT_IN_CUSTOMER_YML, "t", envOf({ SERVICE_EDITOR_TOKEN: "short" })),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes("SERVICE_EDITOR_TOKEN: tokens must be at least 16 characters") &&
      !error.message.includes("short"),
  );
});

Deno.test("CORS origins: none by default, a comma-separated string or a YAML list", () => {
  assert.deepEqual(
    parseConfigText(BUILT_IN_CUSTOMER_YML, "t", noEnv).service.http.cors.origins,
    [],
  );
  const fromEnv = parseConfigText(
    BUILT_IN_CUSTOMER_YML,
    "t",
    envOf({ SERVICE_HTTP_CORS_ORIGINS: "https://a.example, http://localhost:5173" }),
  );
  assert.deepEqual(fromEnv.service.http.cors.origins, [
    "https://a.example",
    "http://localhost:5173",
  ]);
  const listed = parseConfigText(
    "service:\n  http:\n    cors:\n      origins: [https://a.example]\n",
    "t",
    noEnv,
  );
  assert.deepEqual(listed.service.http.cors.origins, ["https://a.example"]);
  for (const bad of ["https://a.example/", "a.example", "ftp://a.example", "*"]) {
    assert.throws(
      () => parseConfigText(BUILT_IN_CUSTOMER_YML, "t", envOf({ SERVICE_HTTP_CORS_ORIGINS: bad })),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes("service.http.cors.origins.0") &&
        error.message.includes("is not an origin"),
      bad,
    );
  }
});

Deno.test("search order: --config, $CUSTOMER_YML, ./customer.yml, beside the executable", () => {
  const dir = Deno.makeTempDirSync();
  const exeDir = Deno.makeTempDirSync();
  try {
    const explicit = join(dir, "explicit.yml");
    const fromEnv = join(dir, "env.yml");
    for (const path of [explicit, fromEnv]) Deno.writeTextFileSync(path, "workspaces: []\n");
    Deno.writeTextFileSync(join(exeDir, "customer.yml"), "workspaces: []\n");
    const env = envOf({ CUSTOMER_YML: fromEnv });
    assert.equal(findConfigFile({ args: ["--config", explicit], env, cwd: dir }), explicit);
    assert.equal(findConfigFile({ args: [`--config=${explicit}`], env, cwd: dir }), explicit);
    assert.equal(findConfigFile({ args: [], env, cwd: dir }), fromEnv);
    assert.equal(
      findConfigFile({ args: [], env: noEnv, cwd: dir, executableDir: exeDir }),
      join(exeDir, "customer.yml"),
    );
    Deno.writeTextFileSync(join(dir, "customer.yml"), "workspaces: []\n");
    assert.equal(
      findConfigFile({ args: [], env: noEnv, cwd: dir, executableDir: exeDir }),
      join(dir, "customer.yml"),
    );
    const empty = Deno.makeTempDirSync();
    assert.equal(findConfigFile({ args: [], env: noEnv, cwd: empty }), undefined);
    assert.equal(loadConfig({ args: [], env: noEnv, cwd: empty }).source, "built-in defaults");
    assert.throws(
      () => findConfigFile({ args: ["--config", join(dir, "missing.yml")], env: noEnv, cwd: dir }),
      ConfigError,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
    Deno.removeSync(exeDir, { recursive: true });
  }
});

Deno.test("opensearch nodes: one URL, a comma-separated string or a YAML list", () => {
  const nodesOf = (env: Record<string, string>, yaml = BUILT_IN_CUSTOMER_YML) =>
    parseConfigText(yaml, "t", envOf(env)).service.search.opensearch.node;
  assert.deepEqual(nodesOf({}), ["http://127.0.0.1:9200"]);
  assert.deepEqual(nodesOf({ SERVICE_OPENSEARCH_URL: "" }), ["http://127.0.0.1:9200"]);
  assert.deepEqual(nodesOf({ SERVICE_OPENSEARCH_URL: "https://os1:9200" }), ["https://os1:9200"]);
  assert.deepEqual(
    nodesOf({ SERVICE_OPENSEARCH_URL: "http://os1:9200, https://u:p@os2:9200/,http://os3:9200" }),
    ["http://os1:9200", "https://u:p@os2:9200/", "http://os3:9200"],
  );
  assert.deepEqual(
    nodesOf(
      {},
      "service:\n  search:\n    opensearch:\n      node:\n        - http://a:9200\n" +
        "        - http://b:9200\n",
    ),
    ["http://a:9200", "http://b:9200"],
  );
});

Deno.test("opensearch nodes: a bad entry is named by its place, without its password", () => {
  const problemOf = (node: string) => {
    try {
      parseConfigText(BUILT_IN_CUSTOMER_YML, "t", envOf({ SERVICE_OPENSEARCH_URL: node }));
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.problems.join("\n");
    }
    assert.fail(`${node} was accepted`);
  };
  assert.equal(
    problemOf("http://a:9200,os2:9200"),
    'service.search.opensearch.node.1: "os2:9200" is not an http:// or https:// URL',
  );
  assert.equal(
    problemOf("ftp://user:hunter2@a,http://b"),
    'service.search.opensearch.node.0: "ftp://user:******@a" is not an http:// or https:// URL',
  );
  assert.equal(
    problemOf("http://a:9200,http://[::1"),
    'service.search.opensearch.node.1: "http://[::1" is not a URL',
  );
  assert.equal(
    problemOf("http://a:9200, http://a:9200/"),
    'service.search.opensearch.node.1: "http://a:9200/" is listed twice',
  );
  assert.equal(problemOf(" , "), "service.search.opensearch.node: at least one URL is needed");
  assert.throws(
    () => parseConfigText("service:\n  search:\n    opensearch:\n      node: 9200\n", "t", noEnv),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes("service.search.opensearch.node: a URL, a comma-separated list"),
  );
});

Deno.test("CA files: set from the environment; a missing, key-only or broken file is refused", async () => {
  const config = parseConfigText(
    BUILT_IN_CUSTOMER_YML,
    "t",
    envOf({ SERVICE_SPARQL_CA_FILE: "/etc/sparql-ca.pem", SERVICE_OPENSEARCH_CA_FILE: "os.pem" }),
  );
  assert.equal(config.service.store.sparql.caFile, "/etc/sparql-ca.pem");
  assert.equal(config.service.search.opensearch.caFile, "os.pem");
  assert.equal(
    parseConfigText(BUILT_IN_CUSTOMER_YML, "t", noEnv).service.store.sparql.caFile,
    undefined,
  );

  const dir = Deno.makeTempDirSync();
  try {
    const { caPem, certPem, keyPem } = await makeTestCertificates();
    const bundle = join(dir, "bundle.pem");
    Deno.writeTextFileSync(bundle, `# two CAs\n${caPem}\n${certPem}`);
    assert.deepEqual(readCaCertificates(bundle, "k"), [caPem.trim(), certPem.trim()]);

    const problemOf = (path: string) => {
      try {
        readCaCertificates(path, "service.store.sparql.caFile");
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return error.message;
      }
      assert.fail(`${path} was accepted`);
    };
    assert.match(
      problemOf(join(dir, "missing.pem")),
      /service\.store\.sparql\.caFile: cannot read .*missing\.pem/,
    );
    const key = join(dir, "key.pem");
    Deno.writeTextFileSync(key, keyPem);
    assert.match(problemOf(key), /caFile: .*key\.pem holds no PEM certificate/);
    const broken = join(dir, "broken.pem");
    Deno.writeTextFileSync(
      broken,
      `${caPem}-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n`,
    );
    assert.match(problemOf(broken), /caFile: certificate 2 of .*broken\.pem is not valid/);
    assert.match(problemOf(dir), /caFile: cannot read/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
