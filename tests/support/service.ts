/**
 * A whole service on a free loopback port, for API tests: real HTTP, real node:http
 * server, a temporary data directory, and the store backend chosen per suite.
 */
import { parseConfigText } from "../../src/config/load.ts";
import type { ServiceConfig } from "../../src/config/schema.ts";
import { buildServices, type Services } from "../../src/services.ts";
import { createApp } from "../../src/app.ts";
import { type RunningServer, startServer } from "../../src/http/server.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { dropIsolatedGraphs, isolateSparqlStore } from "./sparql_isolation.ts";
import { makeGraphPrivate, VIRTUOSO_SKIPPED, virtuosoServiceEnv } from "./virtuoso.ts";

/** The demo collection of the shipped customer.yml. */
export const DEMO_WORKSPACE = "https://data.example.org/workspace/demo";
export const DEMO_COLLECTION = "https://data.example.org/collection/documents";

/** A store backend an API suite runs against. */
export interface StoreBackend {
  /** `sparql` is the SPARQL store on Fuseki; `virtuoso` the same store on Virtuoso. */
  name: "embedded" | "sparql" | "virtuoso";
  /** The store implementation the service runs: the SQLite file or the SPARQL store. */
  kind: "embedded" | "sparql";
  /** Why the suite is skipped on this backend, if it is. */
  skip?: string;
  env: Record<string, string>;
}

/**
 * The backends to run API suites on: embedded always, SPARQL when a Fuseki is configured,
 * and with `allStores` (the suites that exercise the store itself) the SPARQL store on
 * Virtuoso too when one is configured. On the SPARQL store every test service keeps to
 * graphs of its own (sparql_isolation.ts), so suites share one store without seeing each
 * other's items.
 */
export function storeBackends(options: { allStores?: boolean } = {}): StoreBackend[] {
  const virtuoso = virtuosoServiceEnv();
  const extra: StoreBackend[] = options.allStores
    ? [{
      name: "virtuoso",
      kind: "sparql",
      skip: virtuoso ? undefined : VIRTUOSO_SKIPPED,
      env: virtuoso ?? {},
    }]
    : [];
  const queryUrl = Deno.env.get("SERVICE_SPARQL_QUERY_URL");
  const credentials: Record<string, string> = {};
  for (const name of ["SERVICE_SPARQL_USER", "SERVICE_SPARQL_PASSWORD"]) {
    const value = Deno.env.get(name);
    if (value) credentials[name] = value;
  }
  return [
    { name: "embedded", kind: "embedded", env: {} },
    {
      name: "sparql",
      kind: "sparql",
      skip: queryUrl ? undefined : "set SERVICE_SPARQL_QUERY_URL (scripts/fuseki.sh start)",
      env: {
        SERVICE_STORE_BACKEND: "sparql",
        SERVICE_SPARQL_QUERY_URL: queryUrl ?? "",
        SERVICE_SPARQL_UPDATE_URL: Deno.env.get("SERVICE_SPARQL_UPDATE_URL") ?? "",
        SERVICE_SPARQL_GSP_URL: Deno.env.get("SERVICE_SPARQL_GSP_URL") ?? "",
        // What the user's queries take as their default graph on this store: Fuseki's union
        // of the named graphs (suites whose customer.yml reads it).
        SERVICE_SPARQL_USER_DEFAULT_GRAPH: "urn:x-arq:UnionGraph",
        ...credentials,
      },
    },
    ...extra,
  ];
}

/** A started service and helpers to call it. */
export interface TestService {
  url: string;
  config: ServiceConfig;
  services: Services;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link startTestService}. */
export interface TestServiceOptions {
  /** customer.yml text; the shipped demo configuration when omitted. */
  yaml?: string;
  env?: Record<string, string>;
  dataDir?: string;
}

const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));

/** Starts the service in this process on a free port. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "rcs-test-" });
  const env: Record<string, string> = {
    SERVICE_HTTP_PORT: "0",
    SERVICE_DATA_DIR: dataDir,
    ...options.env,
  };
  const config = parseConfigText(options.yaml ?? SHIPPED, "test", (name) => env[name]);
  const isolated = isolateSparqlStore(config, dataDir);
  // Graphs of a data directory the test passed in may be wanted again (a restart).
  const dropGraphs = async () => {
    if (isolated && !options.dataDir) await dropIsolatedGraphs(config).catch(() => {});
  };
  const virtuosoSql = env.RCS_TEST_VIRTUOSO_SQL;
  if (isolated && virtuosoSql) {
    await makeGraphPrivate(virtuosoSql, config.service.store.sparql.metadataGraph!);
  }
  const services = buildServices(config);
  const restoreLog = setLogSink(() => {}, "error");
  let server: RunningServer;
  try {
    // As main.ts does before it listens.
    await services.checkStore();
    server = await startServer(createApp(services.deps), { host: "127.0.0.1", port: 0 });
  } catch (error) {
    restoreLog();
    await services.close();
    await dropGraphs();
    throw error;
  }
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    config,
    services,
    fetch: (path, init) => fetch(url + path, init),
    close: async () => {
      await server.close();
      await services.close();
      restoreLog();
      await dropGraphs();
      if (!options.dataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Registers one test named `[label/backend] name` that runs `fn` against a fresh service on
 * `backend` (with `options.yaml` and `options.env` over the backend's), ignored when that
 * backend is not available here.
 */
export function storeTest(
  label: string,
  backend: StoreBackend,
  name: string,
  fn: (service: TestService) => Promise<void>,
  options: { yaml?: string; env?: Record<string, string> } = {},
): void {
  Deno.test({
    name: `[${label}/${backend.name}] ${name}`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({
        yaml: options.yaml,
        env: { ...backend.env, ...options.env },
      });
      try {
        await fn(service);
      } finally {
        await service.close();
      }
    },
  });
}

/** A client of `service` holding `token` (sent as a bearer token with every request). */
export function withToken(service: TestService, token: string) {
  return (path: string, init: RequestInit = {}) =>
    service.fetch(path, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, ...init.headers },
    });
}

/** `?collection=…&item=…` for the demo collection. */
export function itemQuery(item: string, collection = DEMO_COLLECTION): string {
  return `collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(item)}`;
}

/** A unique item URI for one test. */
export function uniqueItemUri(label = "item"): string {
  return `https://data.example.org/id/test/${label}-${crypto.randomUUID()}`;
}
