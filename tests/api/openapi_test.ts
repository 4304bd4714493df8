/**
 * `/openapi.json` against the app and against docs/api.md: every route the app registers is
 * documented and every documented operation is routed; every route of docs/api.md is there with
 * its parameters; the document is valid OpenAPI 3.1 and carries the service version; the
 * roles it names are the ones the service enforces; and the parameters it documents are
 * the ones the service validates, with the problems docs/api.md fixes.
 */
import { strict as assert } from "node:assert";
import { Validator } from "@seriousme/openapi-schema-validator";
import {
  DEMO_COLLECTION,
  DEMO_WORKSPACE,
  startTestService,
  type TestService,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { createApp } from "../../src/app.ts";
import { requiredRole } from "../support/route_roles.ts";
import { buildOpenApiDocument } from "../../src/openapi/document.ts";
import { ALL_CONTRACTS } from "../../src/routes/contracts/all.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The HTTP surface docs/api.md fixes: method, path, and each parameter (true when required). */
const API_MD: [string, string, Record<string, boolean>][] = [
  ["GET", "/api/admin/index/is-running", {}],
  ["POST", "/api/admin/index", { workspace: true, clear: false, wait: false }],
  ["POST", "/api/admin/index/collection", { collection: true, clear: false, wait: false }],
  ["POST", "/api/admin/index/items", { collection: true, item: true, wait: false }],
  ["GET", "/api/admin/index/jobs", {}],
  ["GET", "/api/admin/index/jobs/{id}", { id: true }],
  ["PUT", "/api/item", { collection: true, item: false }],
  ["GET", "/api/item", { collection: true, item: true, version: false }],
  ["POST", "/api/item", { collection: true, item: true }],
  ["DELETE", "/api/item", { collection: true, item: true }],
  ...["ttl", "rdf", "nt", "n3", "jsonld"].map((extension): [
    string,
    string,
    Record<string, boolean>,
  ] => ["GET", `/api/item.${extension}`, { collection: true, item: true, version: false }]),
  ["GET", "/api/item/history", { collection: true, item: true, limit: false, before: false }],
  ["POST", "/api/item/restore", { collection: true, item: true, version: true }],
  ["GET", "/api/item/diff", { collection: true, item: true, from: true, to: true }],
  ["POST", "/api/item/initialize", { collection: true, uri: true }],
  ["GET", "/api/item/hash", { collection: true }],
  ["POST", "/api/item/hash", { collection: true }],
  ["GET", "/api/admin/tools/sparqlui/sparql-endpoints", {}],
  ["POST", "/api/admin/tools/sparqlui/query", { endpoint: true }],
  ["GET", "/admin/sparqlui", {}],
  ["POST", "/api/admin/tools/dump-settings", {}],
  ["POST", "/api/admin/tools/generate-shacl", { namespace: true }],
  [
    "GET",
    "/api/search",
    {
      collection: false,
      workspace: false,
      q: false,
      filter: false,
      sort: false,
      from: false,
      size: false,
    },
  ],
  ["POST", "/api/search", { collection: true }],
  ["GET", "/health", {}],
  ["GET", "/ready", {}],
  ["GET", "/openapi.json", {}],
];

/** docs/api.md's URI parameters, booleans and lists. */
const IRI_PARAMETERS = ["workspace", "collection", "item", "uri", "namespace"];
const BOOLEAN_PARAMETERS = ["clear", "wait"];
const LIST_PARAMETERS: Record<string, string[]> = {
  "POST /api/admin/index/items": ["item"],
  "POST /api/item/initialize": ["uri"],
  "GET /api/search": ["collection", "filter", "sort"],
};

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Every documented operation as `METHOD path`, with the operation object. */
function operations(document: Json): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const method of METHODS) {
      if (item[method]) found.set(`${method.toUpperCase()} ${path}`, item[method]);
    }
  }
  return found;
}

/** A service plus its document, fetched over HTTP. */
async function withDocument(
  fn: (service: TestService, document: Json, response: Response) => void | Promise<void>,
): Promise<void> {
  const service = await startTestService();
  try {
    const response = await service.fetch("/openapi.json");
    const document = await response.clone().json();
    await fn(service, document, response);
  } finally {
    await service.close();
  }
}

const serviceTest = (name: string, fn: Parameters<typeof withDocument>[0]) =>
  Deno.test({ name, sanitizeResources: false, sanitizeOps: false, fn: () => withDocument(fn) });

serviceTest(
  "GET /openapi.json is the OpenAPI 3.1 document, versioned",
  async (service, doc, res) => {
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(doc.openapi, "3.1.0");
    const health = await service.fetch("/health");
    const { version } = await health.json();
    assert.equal(typeof version, "string");
    assert.equal(doc.info.version, version);
    assert.equal(res.headers.get("x-service-version"), version);
    assert.equal(health.headers.get("x-service-version"), version);
    assert.deepEqual(doc, buildOpenApiDocument(ALL_CONTRACTS, { version }));

    const result = await new Validator().validate(doc);
    assert.deepEqual(result, { valid: true }, JSON.stringify(result.errors, null, 2));

    const ids = new Set<string>();
    for (const [key, operation] of operations(doc)) {
      assert.ok(!ids.has(operation.operationId), `${key}: operationId used twice`);
      ids.add(operation.operationId);
      const statuses = Object.keys(operation.responses);
      assert.ok(statuses.some((status) => /^[23]\d\d$/.test(status)), `${key}: no success`);
      if ((operation.parameters ?? []).some((p: Json) => p.in === "query" && p.required)) {
        assert.ok(statuses.includes("400"), `${key}: required parameters but no 400`);
      }
      const problem = operation.responses.default.content["application/problem+json"];
      assert.equal(problem.schema.$ref, "#/components/schemas/Problem", key);
    }
  },
);

serviceTest("every route of the app is documented, and every documented one routed", (
  service,
  doc,
) => {
  const app = createApp(service.services.deps);
  const routed = new Set(
    app.routes
      // Middleware registers as ALL on a wildcard; a real route never does here.
      .filter((route) => !(route.method === "ALL" && /^\/?\*$/.test(route.path)))
      .map((route) => `${route.method} ${route.path.replace(/:([^/]+)/g, "{$1}")}`),
  );
  const documented = new Set(operations(doc).keys());
  assert.ok(routed.size >= API_MD.length, `only ${routed.size} routes found`);
  assert.deepEqual(
    [...routed].filter((route) => !documented.has(route)),
    [],
    "routes the document lacks",
  );
  assert.deepEqual(
    [...documented].filter((operation) => !routed.has(operation)),
    [],
    "documented operations the app does not route",
  );
});

serviceTest("every route of docs/api.md is documented with its parameters", (_service, doc) => {
  const documented = operations(doc);
  for (const [method, path, parameters] of API_MD) {
    const key = `${method} ${path}`;
    const operation = documented.get(key);
    assert.ok(operation, `${key} (docs/api.md) is not in the document`);
    const byName = new Map<string, Json>(
      (operation.parameters ?? []).map((p: Json) => [p.name, p]),
    );
    for (const [name, required] of Object.entries(parameters)) {
      const parameter = byName.get(name);
      assert.ok(parameter, `${key}: parameter ${name} is not documented`);
      assert.equal(parameter.required, required, `${key}: ${name} required?`);
      assert.equal(typeof parameter.description, "string", `${key}: ${name} description`);
      const schema = parameter.schema.type === "array" ? parameter.schema.items : parameter.schema;
      if (IRI_PARAMETERS.includes(name)) assert.equal(schema.format, "iri", `${key}: ${name}`);
      if (BOOLEAN_PARAMETERS.includes(name)) {
        assert.deepEqual(schema.enum, ["true", "false"], `${key}: ${name}`);
      }
      const isList = LIST_PARAMETERS[key]?.includes(name) ?? false;
      assert.equal(parameter.schema.type === "array", isList, `${key}: ${name} is a list?`);
    }
  }
});

serviceTest("the roles documented are the roles the service enforces", async (_service, doc) => {
  for (const [key, operation] of operations(doc)) {
    const [method, path] = key.split(" ");
    const enforced = await requiredRole(method, path.replace(/\{[^}]+\}/g, "x"));
    const scope = operation.security.length === 0
      ? undefined
      : operation.security[0].bearerToken[0];
    // `authenticated`: any valid identity, as the probe's reader token is.
    const documented = scope === "authenticated" ? "reader" : scope;
    assert.equal(documented, enforced, key);
  }
});

/** A value each documented parameter accepts, so one at a time can be made wrong. */
function validValue(parameter: Json): string {
  const schema = parameter.schema.type === "array" ? parameter.schema.items : parameter.schema;
  if (schema.format === "iri") {
    return parameter.name === "workspace" ? DEMO_WORKSPACE : DEMO_COLLECTION;
  }
  if (schema.enum) return schema.enum[0];
  if (schema.type === "integer") return "1";
  return "x";
}

/** Wrong values for a parameter (undefined: left out) and the problem each gets. */
function wrongValues(parameter: Json): [string[] | undefined, string][] {
  const isList = parameter.schema.type === "array";
  const schema = isList ? parameter.schema.items : parameter.schema;
  const wrong: [string[] | undefined, string][] = [];
  if (parameter.required) wrong.push([undefined, "missing-parameter"]);
  if (schema.format === "iri") wrong.push([["not an iri"], "invalid-iri"]);
  if (schema.enum) {
    const boolean = schema.enum.length === 2 && schema.enum.includes("true");
    wrong.push([["yes"], boolean ? "invalid-boolean" : "invalid-parameter"]);
  }
  if (schema.type === "integer") wrong.push([["-1"], "invalid-parameter"]);
  // A single-valued parameter given twice.
  if (!isList) wrong.push([[validValue(parameter), validValue(parameter)], "invalid-parameter"]);
  return wrong;
}

serviceTest("documented parameters are the validated ones, with docs/api.md's problems", async (
  service,
  doc,
) => {
  let checked = 0;
  for (const [key, operation] of operations(doc)) {
    const [method, path] = key.split(" ");
    const query = (operation.parameters ?? []).filter((p: Json) => p.in === "query");
    for (const target of query) {
      for (const [wrong, slug] of wrongValues(target)) {
        const search = new URLSearchParams();
        for (const parameter of query) {
          if (parameter !== target) {
            if (parameter.required) search.append(parameter.name, validValue(parameter));
          } else {
            for (const value of wrong ?? []) search.append(parameter.name, value);
          }
        }
        const response = await service.fetch(
          `${path.replace(/\{[^}]+\}/g, "x")}?${search}`,
          { method },
        );
        const body = await expectProblem(response, 400, slug).catch((error) => {
          throw new Error(`${key} ${target.name}=${wrong}: ${error.message}`);
        });
        const errors = body.errors as { path: string }[] | undefined;
        assert.equal(errors?.[0]?.path, target.name, `${key} ${target.name}=${wrong}`);
        checked++;
      }
    }
  }
  // Every operation with parameters was probed: a floor, so a broken loop cannot pass.
  assert.ok(checked > 60, `only ${checked} checks ran`);
});

Deno.test({
  name: "with tokens, /openapi.json needs a reader token",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const shipped = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
    const token = "openapi-reader-token-0123456789";
    const service = await startTestService({
      yaml: shipped.replace(
        "    tokens: []",
        `    tokens:\n      - { name: r, token: "${token}", role: reader }`,
      ),
    });
    try {
      await expectProblem(await service.fetch("/openapi.json"), 401, "unauthorized");
      const response = await service.fetch("/openapi.json", {
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
      assert.equal((await response.json()).openapi, "3.1.0");
    } finally {
      await service.close();
    }
  },
});
