/**
 * The shape of `customer.yml`, after `${VAR:default}` substitution.
 *
 * Values arrive as strings when they came from a reference, so numbers and booleans are
 * coerced here; an empty string means "not set" for optional values.
 */
import { z } from "zod";
import { FIELD_TYPES } from "../fields/field_types.ts";
import { parseFieldPath, prefixesOf } from "../fields/field_paths.ts";
import { SEARCH_LANGUAGES } from "../fields/languages.ts";
import { SERVICE_SEARCH_FIELDS } from "../fields/field_names.ts";
import { maskUrlCredentials } from "./secret_masking.ts";
import { DEFAULT_MAX_WORK_FACTOR } from "../rdf/canonical_hash.ts";
import { KEEP_ALL, retentionSetting } from "./history_retention.ts";
import { webhooksSchema } from "./webhook_setting.ts";

const emptyAsUndefined = (value: unknown) => value === "" || value === null ? undefined : value;

const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (value) => typeof value === "string" && value.trim() !== "" ? Number(value) : value,
    z.number().int().min(min).max(max),
  );

const flag = z.preprocess((value) => {
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}, z.boolean());

const absoluteIri = z.string().regex(
  /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/,
  "must be an absolute IRI",
);

/**
 * HTTP(S) base URLs of the nodes of one cluster: a YAML list, or one string that may list
 * several separated by commas (so one environment variable can name a whole cluster). Each
 * entry must be an http:// or https:// URL, and none may be listed twice.
 */
const nodeUrls = z.union([z.string(), z.array(z.string())], {
  error: "a URL, a comma-separated list of URLs or a YAML list of URLs",
}).transform((value, ctx) => {
  const nodes = (typeof value === "string" ? value.split(",") : value)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const seen = new Set<string>();
  nodes.forEach((node, index) => {
    const problem = nodeUrlProblem(node, seen);
    if (problem) ctx.issues.push({ code: "custom", input: value, path: [index], message: problem });
  });
  if (nodes.length === 0) {
    ctx.issues.push({ code: "custom", input: value, message: "at least one URL is needed" });
  }
  return nodes;
});

/** What is wrong with one node URL, if anything; `seen` collects the URLs checked before. */
function nodeUrlProblem(node: string, seen: Set<string>): string | undefined {
  // Shown in start-up errors: a password in a mistyped URL must not be.
  const shown = JSON.stringify(maskUrlCredentials(node));
  let url: URL;
  try {
    url = new URL(node);
  } catch {
    return `${shown} is not a URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `${shown} is not an http:// or https:// URL`;
  }
  // The client keys its connections by URL: the same node twice would stop it.
  if (seen.has(url.href)) return `${shown} is listed twice`;
  seen.add(url.href);
  return undefined;
}

/**
 * Browser origins (`scheme://host[:port]`, as browsers send them in `Origin`): a YAML list,
 * or one comma-separated string, so one environment variable can list them all.
 */
const origins = z.union([z.string(), z.array(z.string())], {
  error: "an origin, a comma-separated list of origins or a YAML list of origins",
}).transform((value, ctx) => {
  const listed = (typeof value === "string" ? value.split(",") : value)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  listed.forEach((origin, index) => {
    if (!isOrigin(origin)) {
      ctx.issues.push({
        code: "custom",
        input: value,
        path: [index],
        message: `${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path)`,
      });
    }
  });
  return listed;
});

/** Whether `text` is an http(s) origin exactly as a browser writes it in `Origin`. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}

/** One initialise rule: a SPARQL CONSTRUCT with `?this` bound to each listed URI. */
export const initializeRuleSchema = z.object({
  name: z.string().min(1),
  forType: absoluteIri.optional(),
  construct: z.string().min(1),
  from: z.enum(["body", "store"]).default("body"),
});

const indexName = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "lowercase letters, digits, - and _");

/** A search field of a collection: a property path into a typed field (mapped_fields.ts). */
const indexFieldSchema = z.object({
  name: z.string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "letters, digits, _ and -, starting with a letter")
    .refine((name) => !SERVICE_SEARCH_FIELDS.includes(name), "a field the service sets itself"),
  path: z.string().min(1),
  type: z.enum(FIELD_TYPES).default("text"),
  language: z.enum(SEARCH_LANGUAGES as [string, ...string[]]).optional(),
  multiple: flag.default(true),
});

/**
 * `index: name`, or `index: {name, fields}` with the collection's own search fields. A
 * plain name is read as `{name}` first, so that errors point into the object's keys.
 */
const indexSchema = z.preprocess(
  (value) => typeof value === "string" ? { name: value } : value,
  z.object({ name: indexName, fields: z.array(indexFieldSchema).default([]) }),
);

/**
 * Who a grant names (docs/SECURITY.md): a configured token by name, a JWT subject, a JWT
 * group, or anyone with a valid identity.
 */
export const principalSchema = z.string().regex(
  /^(?:token:.+|user:.+|group:.+|authenticated)$/,
  "token:NAME, user:SUB, group:NAME or authenticated",
);

/**
 * A collection's grants: with them, only the principals listed (and admins) read it, and
 * only its editors write it; without them, the global roles decide as they always did.
 */
export const accessSchema = z.object({
  readers: z.array(principalSchema).default([]),
  editors: z.array(principalSchema).default([]),
}).strict();

/** A collection of items, with its search index and optional per-collection behaviour. */
export const collectionSchema = z.object({
  uri: absoluteIri,
  name: z.string().min(1),
  index: indexSchema,
  itemUriTemplate: z.string().min(1).optional(),
  /** JSON-LD context used to compact search documents. */
  context: z.record(z.string(), z.unknown()).optional(),
  /** The search language its untagged string literals are also stemmed in. */
  language: z.enum(SEARCH_LANGUAGES as [string, ...string[]]).optional(),
  /** Path to a SHACL shapes file (Turtle) that every write must satisfy. */
  shapes: optionalString,
  /** The shapes as Turtle text instead of a file (what the admin API is usually given). */
  shapesTurtle: optionalString,
  /** OpenSearch mappings that replace the defaults for this collection's index. */
  mappings: z.record(z.string(), z.unknown()).optional(),
  initialize: z.array(initializeRuleSchema).default([]),
  /** Per-collection grants; unset: the global roles decide (docs/SECURITY.md). */
  access: accessSchema.optional(),
  /** The collection's own item history retention; unset: `service.history.retention`. */
  history: z.object({ retention: retentionSetting.optional() }).strict().optional(),
  /** Endpoints every change of the collection is POSTed to, signed (`webhook_setting.ts`). */
  webhooks: webhooksSchema.optional(),
}).superRefine((collection, ctx) => {
  if (collection.shapes !== undefined && collection.shapesTurtle !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["shapesTurtle"],
      message: "give shapes or shapesTurtle",
    });
  }
  const prefixes = prefixesOf(collection.context);
  const seen = new Set<string>();
  collection.index.fields.forEach((field, position) => {
    const at = (key: string) => ["index", "fields", position, key];
    try {
      parseFieldPath(field.path, prefixes);
    } catch (error) {
      ctx.addIssue({ code: "custom", path: at("path"), message: (error as Error).message });
    }
    if (seen.has(field.name)) {
      ctx.addIssue({ code: "custom", path: at("name"), message: "another field has this name" });
    }
    seen.add(field.name);
    if (field.language !== undefined && field.type !== "text") {
      ctx.addIssue({ code: "custom", path: at("language"), message: "only text fields" });
    }
  });
}).transform(({ index, ...collection }) => ({
  ...collection,
  index: index.name,
  /** The collection's own search fields (`index.fields`); none by default. */
  fields: index.fields,
}));

/** A workspace: a group of collections with shared initialise rules. */
export const workspaceSchema = z.object({
  uri: absoluteIri,
  name: z.string().min(1),
  initialize: z.array(initializeRuleSchema).default([]),
  collections: z.array(collectionSchema).default([]),
});

/** One bearer token: configured in `service.security.tokens`, or from the environment. */
export const tokenSchema = z.object({
  name: z.string().min(1),
  token: z.string().min(16, "tokens must be at least 16 characters"),
  role: z.enum(["reader", "editor", "admin"]),
});

const endpointSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, - and _"),
  name: z.string().min(1),
  url: z.url(),
  username: optionalString,
  password: optionalString,
  /** PEM file of CA certificates trusted for HTTPS to this endpoint (not the store's). */
  caFile: optionalString,
  readOnly: flag.default(true),
});

/**
 * Group → global role of JWT identities: a YAML mapping, or one string `group=role,…` so one
 * environment variable can carry it.
 */
const groupRoles = z.preprocess((value) => {
  if (typeof value !== "string") return value;
  const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  return Object.fromEntries(entries.map((entry) => {
    const at = entry.lastIndexOf("=");
    return at < 0 ? [entry, ""] : [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
  }));
}, z.record(z.string().min(1), z.enum(["reader", "editor", "admin"])));

/** `service.security.oidc`: off unless `issuer` is set. */
const oidcSchema = z.object({
  /** The `iss` tokens must carry; unset: JWT bearer tokens are not accepted. */
  issuer: optionalString,
  /** The `aud` tokens must carry (one of theirs). */
  audience: optionalString,
  /** The provider's JWKS, fetched and cached (refetched for an unknown key id). */
  jwksUrl: optionalString,
  /** A JWKS file instead of the URL. */
  jwksFile: optionalString,
  /** Where the groups are in the token: a dotted path (`realm_access.roles`). */
  groupsClaim: z.string().min(1).default("groups"),
  /** Tolerance for `exp` and `nbf`, in seconds. */
  clockSkewSeconds: integer(0, 600).default(30),
  /** Group → global role; none by default (grants alone then decide). */
  roles: z.preprocess(emptyAsUndefined, groupRoles.default({})),
}).superRefine((oidc, ctx) => {
  if (oidc.issuer === undefined) return;
  if (oidc.audience === undefined) {
    ctx.addIssue({ code: "custom", path: ["audience"], message: "needed with an issuer" });
  }
  if ((oidc.jwksUrl === undefined) === (oidc.jwksFile === undefined)) {
    ctx.addIssue({ code: "custom", path: ["jwksUrl"], message: "give jwksUrl or jwksFile" });
  }
}).prefault({});

/** The whole configuration. */
export const configSchema = z.object({
  service: z.object({
    http: z.object({
      host: z.string().min(1).default("127.0.0.1"),
      port: integer(0, 65535).default(8080),
      maxBodyBytes: integer(1).default(16 * 1024 * 1024),
      /**
       * A request body that receives no byte for this long is cut (0: never). No limit on a
       * body's whole duration: a streaming import that makes progress is never cut.
       */
      bodyStallMs: integer(0).default(60_000),
      cors: z.object({
        /** Origins whose pages may call the service from a browser; none by default. */
        origins: z.preprocess(emptyAsUndefined, origins.default([])),
      }).prefault({}),
    }).prefault({}),
    data: z.object({ dir: z.string().min(1).default("./data") }).prefault({}),
    store: z.object({
      backend: z.enum(["embedded", "sparql"]).default("embedded"),
      sparql: z.object({
        queryUrl: optionalString,
        updateUrl: optionalString,
        graphStoreUrl: optionalString,
        username: optionalString,
        password: optionalString,
        /** basic, or digest (RFC 7616; Virtuoso's /sparql-auth). Basic switches to digest when challenged. */
        authScheme: z.preprocess(emptyAsUndefined, z.enum(["basic", "digest"]).default("basic")),
        /**
         * The account user queries (/sparql, the query tool) run as: a read-only account
         * that cannot read the metadata graph (docs/backends.md). Unset: the service's own.
         */
        userQueries: z.object({
          queryUrl: optionalString,
          username: optionalString,
          password: optionalString,
        }).prefault({}),
        /** Items with more triples are staged through the Graph Store Protocol. */
        maxInlineTriples: integer(1, 100_000).default(500),
        /** PEM file of CA certificates trusted for HTTPS to the three endpoints. */
        caFile: optionalString,
        timeoutMs: integer(100).default(30_000),
        /** Reads are retried this many times when the endpoint is unreachable. */
        retries: integer(0, 10).default(2),
        /** Item graph name; `{item}` is replaced by the item URI. */
        graphTemplate: z.string().includes("{item}").default("{item}"),
        /** Sent as default-graph-uri with tool queries (Fuseki: urn:x-arq:UnionGraph). */
        queryDefaultGraph: optionalString,
        /**
         * Where item metadata lives. Services that share one dataset each need their own, and
         * their own graphTemplate.
         */
        metadataGraph: z.preprocess(
          emptyAsUndefined,
          absoluteIri.default("urn:rdf-content-service:meta"),
        ),
      }).prefault({}),
      cache: z.object({
        /**
         * Recently read and written item graphs kept in process, bounded by this estimate
         * of their heap size (64 MiB). 0 turns the cache off.
         */
        maxBytes: integer(0).default(64 * 1024 * 1024),
      }).prefault({}),
      /**
       * Group commit (src/store/group_commit.ts): writes that arrive while a commit is in
       * flight go together into the next one, up to these bounds.
       */
      groupCommit: z.object({
        /** Most writes per group; 1 commits every write alone. */
        maxWrites: integer(1, 10_000).default(64),
        /** Most bytes of triples per group (a larger single write still goes alone). */
        maxBytes: integer(1).default(8 * 1024 * 1024),
        /** Longest a write waits for the commit ahead of it before going beside it. */
        maxWaitMs: integer(1, 60_000).default(1000),
      }).prefault({}),
    }).prefault({}),
    search: z.object({
      backend: z.enum(["embedded", "opensearch"]).default("embedded"),
      /**
       * Put before every collection's `index` on either engine, so that several services can
       * share one cluster. Empty: `opensearch.indexPrefix` (its older name) applies.
       */
      indexPrefix: z.preprocess((v) => v ?? "", z.string()).default(""),
      opensearch: z.object({
        /** Every node of the cluster: requests spread over them and fail over. */
        node: z.preprocess(emptyAsUndefined, nodeUrls.default(["http://127.0.0.1:9200"])),
        username: optionalString,
        password: optionalString,
        /** PEM file of CA certificates trusted for HTTPS to the nodes. */
        caFile: optionalString,
        /** The older name of `service.search.indexPrefix`, still read when that one is empty. */
        indexPrefix: z.preprocess((v) => v ?? "", z.string()).default(""),
        /**
         * How long the client waits for each kind of request before it gives up (the request
         * is aborted; a timeout counts towards failFast). Searches, bulk index writes, and
         * admin calls (index creation, health, refresh, deletes).
         */
        timeouts: z.object({
          searchMs: integer(100, 300_000).default(10_000),
          bulkMs: integer(100, 600_000).default(30_000),
          adminMs: integer(100, 300_000).default(10_000),
        }).prefault({}),
        /**
         * `POST /api/search`: the raw query DSL, which only OpenSearch answers, behind the gate
         * of src/search_opensearch/dsl_gate.ts.
         */
        dsl: z.object({
          /** The least role that may use it; `none` switches it off. */
          role: z.enum(["reader", "editor", "admin", "none"]).default("editor"),
          /** Leading wildcards, `regexp`, fuzzy matching and `prefix` on text fields. */
          expensiveQueries: flag.default(false),
          /** OpenSearch's search timeout; the service answers 504 once it passes. */
          timeoutMs: integer(100, 300_000).default(10_000),
        }).prefault({}),
      }).prefault({}),
      query: z.object({
        maxResultsLimit: integer(1).default(10000),
        maxWindow: integer(1).default(10000),
        /** Hits counted exactly; beyond, the total is "at least" this (`totalRelation: gte`). */
        trackTotalHits: integer(1).default(10000),
      }).prefault({}),
      indexing: z.object({
        /**
         * Items an indexing job reads and writes per batch (bulk request). Bigger bulk
         * requests cost a single-shard OpenSearch index less per document: 500 indexed 20k
         * items 25% faster than 200 (bench/RESULTS.md).
         */
        batchSize: integer(1, 10_000).default(500),
        /**
         * Worker threads that run a job's batches on the embedded backends (a SQLite
         * connection each: src/indexing/index_batch_pool.ts); 0 runs them on the request
         * thread. Two keep a 2-core machine's both cores on a job (bench/RESULTS.md).
         */
        workers: integer(0, 64).default(2),
      }).prefault({}),
    }).prefault({}),
    security: z.object({
      tokens: z.array(tokenSchema).default([]),
      /** OpenID Connect / JWT bearer tokens from an identity provider (docs/SECURITY.md). */
      oidc: oidcSchema,
    }).prefault({}),
    /** `GET /ready` (docs/operations.md). */
    ready: z.object({
      /**
       * The whole answer's time budget: checks run side by side, and one that has not
       * answered by then counts as failed.
       */
      timeoutMs: integer(100, 60_000).default(1500),
      /** Whether a search engine that is down makes the instance unready (503), not degraded. */
      requireSearch: flag.default(false),
    }).prefault({}),
    /**
     * Fail fast (src/backend/circuit_breaker.ts): after this many timeouts or refused
     * connections in a row an engine (the SPARQL store, OpenSearch) is marked down, and
     * requests that need it answer 503 with Retry-After at once until a probe every
     * `probeIntervalMs` finds it back.
     */
    failFast: z.object({
      failures: integer(1, 1000).default(3),
      probeIntervalMs: integer(100, 300_000).default(2000),
    }).prefault({}),
    cluster: z.object({
      /**
       * How long an instance's claim on shared work lasts without renewal: index outbox
       * entries it is applying, the indexing and import jobs it runs (heartbeat, every
       * third of it; src/jobs/job_lifecycle.ts). An instance that dies
       * holds its work at most this long; another one then takes it.
       */
      leaseMs: integer(1000, 3_600_000).default(30_000),
    }).prefault({}),
    /** The change feed (src/store/change_feed.ts). */
    changes: z.object({
      /**
       * How long a committed change stays in its collection's feed; a cursor older than
       * what is kept answers 410 `cursor-expired`. Seven days by default.
       */
      retentionMs: integer(1000, 365 * 86_400_000).default(7 * 86_400_000),
    }).prefault({}),
    /** Delivery of the change feed to collections' webhooks (src/webhooks/). */
    webhooks: z.object({
      /**
       * How long a change that an endpoint refuses is retried before it is dead-lettered
       * (kept, listed, redelivered on request) and delivery moves on. A day by default.
       */
      retryForMs: integer(0, 30 * 86_400_000).default(86_400_000),
      /** The first retry's wait; each next one doubles, up to `retryMaxMs`. */
      retryStartMs: integer(1, 3_600_000).default(1000),
      /** The longest wait between two attempts. */
      retryMaxMs: integer(1, 86_400_000).default(300_000),
      /** Each POST's time to answer; a later answer counts as a failed attempt. */
      timeoutMs: integer(100, 300_000).default(10_000),
    }).prefault({}),
    sparqlEndpoints: z.array(endpointSchema).default([]),
    /** Item history (issue 41; docs/api.md, Item history). */
    history: z.object({
      /**
       * Which versions a pruning pass keeps, for collections without their own
       * (`history_retention.ts`); the newest version of an item is always kept.
       */
      retention: retentionSetting.default(KEEP_ALL),
      /**
       * Every this many milliseconds each instance starts a pruning job over every collection
       * (one runs at a time; none while every retention is `all`); 0: only when asked.
       */
      pruneIntervalMs: integer(0, 31 * 24 * 3_600_000).default(0),
    }).prefault({}),
    jsonld: z.object({
      /** Remote @context URL → local file holding its copy. Nothing else is fetched. */
      contexts: z.record(z.string(), z.string()).default({}),
    }).prefault({}),
    workers: z.object({
      /**
       * Worker threads that parse, hash and serialise writes and imports (src/items/rdf_work.ts).
       * Empty or 0: all of it on the request thread (the default until workers are measured faster
       * on a quiet machine: on the loaded 2-core machine of the first measurements they cost
       * CPU and memory, bench/RESULTS.md).
       */
      count: z.preprocess(emptyAsUndefined, integer(0, 1024).default(0)),
      /** Tasks that may wait for a busy worker; a request beyond them is refused with 503. */
      queue: integer(1, 1_000_000).default(256),
    }).prefault({}),
    hash: z.object({
      /**
       * rdf-canonize work limit: graphs needing more work are refused with 422. Its default is
       * the hash's own, measured where it is defined (src/rdf/canonical_hash.ts).
       */
      maxWorkFactor: integer(0, 10).default(DEFAULT_MAX_WORK_FACTOR),
    }).prefault({}),
    /**
     * SPARQL queries the service runs for its callers: `/sparql`, the admin query tool and
     * label lookups (initialise rules are trusted configuration and have no such bounds).
     */
    query: z.object({
      /** Each query's timeout. */
      timeoutMs: integer(100).default(30_000),
      /** Most rows one query answers; more are cut (`X-Results-Truncated: true`). */
      maxRows: integer(1).default(10_000),
      /**
       * Longest query text the tool parses (UTF-8 bytes). The SPARQL parser holds the event
       * loop for about 2 ms per KiB, so this bounds how long one query can stall the service.
       */
      maxQueryBytes: integer(1024).default(256 * 1024),
    }).prefault({}),
  }).prefault({}),
  workspaces: z.array(workspaceSchema).default([]),
}).superRefine((config, ctx) => {
  const seen = new Map<string, string>();
  config.workspaces.forEach((workspace, w) => {
    workspace.collections.forEach((collection, c) => {
      const path = ["workspaces", w, "collections", c, "uri"];
      if (seen.has(collection.uri)) {
        ctx.addIssue({ code: "custom", path, message: "collection URI is used twice" });
      }
      seen.set(collection.uri, workspace.uri);
    });
  });
  if (config.service.store.backend === "sparql") {
    for (const key of ["queryUrl", "updateUrl", "graphStoreUrl"] as const) {
      if (!config.service.store.sparql[key]) {
        ctx.addIssue({
          code: "custom",
          path: ["service", "store", "sparql", key],
          message: "required when service.store.backend is sparql",
        });
      }
    }
  }
});

/** The validated configuration the service runs with. */
export type ServiceConfig = z.infer<typeof configSchema>;
/** One workspace of the configuration. */
export type WorkspaceConfig = z.infer<typeof workspaceSchema>;
/** One collection of the configuration. */
export type CollectionConfig = z.infer<typeof collectionSchema>;
/** One initialise rule. */
export type InitializeRule = z.infer<typeof initializeRuleSchema>;
