/**
 * The OpenAPI 3.1 document of the service, built from the route contracts: paths and
 * operations from their methods and paths, parameters from the zod schemas that validate
 * them (their input side, as JSON Schema 2020-12, which OpenAPI 3.1 speaks natively),
 * bodies and responses from what each contract declares, and `info.version` from the
 * running service. Nothing here is written by hand per route.
 */
import { z } from "zod";
import type { BodyContract, ResponseContract, RouteContract } from "../http/route_contract.ts";
import { PROBLEM_JSON } from "../http/errors.ts";

/** A JSON object of the document (the shape is OpenAPI's, not modelled in types here). */
type Json = Record<string, unknown>;

/** What the document says about the service beyond its routes. */
export interface DocumentInfo {
  version: string;
}

/** The problem+json body (RFC 9457) every error answers with. */
const PROBLEM = z.object({
  type: z.string().meta({
    description: "`/problems/<slug>`.",
    examples: ["/problems/invalid-iri"],
  }),
  title: z.string(),
  status: z.int().min(100).max(599),
  detail: z.string(),
  errors: z.array(
    z.object({
      path: z.string().meta({
        description: "A parameter name, a JSON pointer, or `line:column` in an RDF body.",
      }),
      message: z.string(),
    }),
  ).optional(),
}).loose().meta({ description: "RFC 9457 problem details." });

const SECURITY_SCHEME = "bearerToken";

/** Headers every response carries. */
const COMMON_HEADERS: Json = {
  "X-Request-Id": {
    description: "The request's id, echoed if the client sent one.",
    schema: { type: "string" },
  },
  "X-Service-Version": {
    description: "The service version, as in `info.version`.",
    schema: { type: "string" },
  },
};

/** Builds the document from every contract of the service. */
export function buildOpenApiDocument(
  contracts: readonly RouteContract[],
  info: DocumentInfo,
): Json {
  const paths: Record<string, Json> = {};
  const tags: string[] = [];
  for (const contract of contracts) {
    const method = contract.method.toLowerCase();
    const item = paths[contract.path] ??= {};
    if (item[method]) {
      throw new Error(`Two contracts for ${contract.method} ${contract.path}`);
    }
    item[method] = operation(contract);
    for (const tag of contract.tags) if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "rdf-content-service",
      version: info.version,
      description: "RDF content in workspaces, collections and items: item CRUD in RDF, " +
        "downloads, initialise, canonical hashes, search and indexing, admin tools. Every " +
        "error is `application/problem+json`.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: { Problem: jsonSchema(PROBLEM) },
      headers: {
        XRequestId: COMMON_HEADERS["X-Request-Id"],
        XServiceVersion: COMMON_HEADERS["X-Service-Version"],
      },
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "Only when `service.security.tokens` is configured (otherwise the " +
            "service serves loopback only and asks for nothing). Each operation lists the " +
            "least role it needs: `reader` < `editor` < `admin`.",
        },
      },
    },
  };
}

function operation(contract: RouteContract): Json {
  const open = contract.access === "open";
  const op: Json = {
    operationId: contract.operationId,
    summary: contract.summary,
    description: [contract.description, accessNote(contract)].filter(Boolean).join("\n\n"),
    tags: contract.tags,
  };
  const parameters = [...pathParameters(contract), ...queryParameters(contract)];
  if (parameters.length > 0) op.parameters = parameters;
  if (contract.body) op.requestBody = requestBody(contract.body);
  op.responses = responses(contract);
  // Roles as the "scopes" of a non-OAuth scheme: OpenAPI 3.1 lets them name roles.
  op.security = open ? [] : [{ [SECURITY_SCHEME]: [contract.access] }];
  return op;
}

/** Who may call the operation, in words (docs/SECURITY.md). */
function accessNote(contract: RouteContract): string {
  if (contract.access === "open") return "No token needed.";
  const collection = contract.collectionRight === undefined
    ? ""
    : ` The caller must ${
      contract.collectionRight === "read" ? "be able to read" : "be able to write"
    } the collection (its grants, else the global role); a collection it may not read ` +
      "answers 404 as an unknown one.";
  return contract.access === "authenticated"
    ? `Any valid identity; it sees only what it may read.${collection}`
    : `Role: ${contract.access}.${collection}`;
}

function pathParameters(contract: RouteContract): Json[] {
  const names = [...contract.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const shape = contract.pathParams?.shape ?? {};
  const declared = Object.keys(shape);
  if (names.join() !== declared.join()) {
    throw new Error(
      `${contract.operationId}: path parameters ${names.join()} but pathParams ${declared.join()}`,
    );
  }
  return names.map((name) => parameter(name, "path", shape[name] as z.ZodType, true));
}

function queryParameters(contract: RouteContract): Json[] {
  return Object.entries(contract.query.shape).map(([name, field]) => {
    const schema = field as z.ZodType;
    return parameter(name, "query", schema, !schema.isOptional());
  });
}

function parameter(name: string, location: string, field: z.ZodType, required: boolean): Json {
  const { description, ...schema } = jsonSchema(field);
  const entry: Json = { name, in: location, required, schema };
  if (description) entry.description = description;
  return entry;
}

function requestBody(body: BodyContract): Json {
  const content: Record<string, Json> = {};
  for (const [mediaType, schema] of Object.entries(body.content)) {
    content[mediaType] = schema ? { schema: jsonSchema(schema) } : {};
  }
  return { description: body.description, required: body.required, content };
}

function responses(contract: RouteContract): Json {
  const all: Record<string, Json> = {};
  for (const [status, response] of Object.entries(contract.responses)) {
    all[status] = plainResponse(response);
  }
  const problems: Record<string, string> = { ...contract.problems };
  if (contract.access !== "open") {
    problems[401] ??= "Security is configured and the bearer token is missing or not valid " +
      "(the problem's detail says why: expired, wrong audience, bad signature, …).";
    problems[403] ??= contract.collectionRight === "write"
      ? "The caller may read the collection but not write it."
      : contract.access === "authenticated"
      ? "Not given for this operation's own role: any valid identity may call it."
      : `The token's role is weaker than ${contract.access}.`;
  }
  for (const [status, description] of Object.entries(problems)) {
    all[status] = problemResponse(description);
  }
  const ordered: Json = {};
  for (const status of Object.keys(all).sort()) ordered[status] = all[status];
  ordered.default = problemResponse("Any other error, e.g. a 500 naming the request id.");
  return ordered;
}

function plainResponse(response: ResponseContract): Json {
  const headers: Json = { ...commonHeaderRefs() };
  for (const [name, description] of Object.entries(response.headers ?? {})) {
    headers[name] = { description, schema: { type: "string" } };
  }
  const entry: Json = { description: response.description, headers };
  if (response.content) {
    entry.content = Object.fromEntries(
      response.content.map((mediaType) => [
        mediaType,
        response.schema ? { schema: jsonSchema(response.schema) } : {},
      ]),
    );
  }
  return entry;
}

function problemResponse(description: string): Json {
  return {
    description,
    headers: commonHeaderRefs(),
    content: { [PROBLEM_JSON]: { schema: { $ref: "#/components/schemas/Problem" } } },
  };
}

function commonHeaderRefs(): Json {
  return {
    "X-Request-Id": { $ref: "#/components/headers/XRequestId" },
    "X-Service-Version": { $ref: "#/components/headers/XServiceVersion" },
  };
}

/**
 * A zod schema as JSON Schema 2020-12, from its input side: for parameters that is what
 * clients send (a boolean is the text `true`/`false`, not the parsed value), and for the
 * documentation-only response shapes it leaves objects open to fields added later.
 */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Json;
  return rest;
}
