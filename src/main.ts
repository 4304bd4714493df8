/**
 * Entry point: read customer.yml, build the services, serve. Exits non-zero with the key
 * path and the reason when the configuration is unusable. `--version` prints
 * `rdf-content-service <version>` and exits; `--help` prints {@link USAGE} and exits, before
 * anything else is read; an option it does not know is refused (exit 2).
 */
import { parseArgs } from "node:util";
import { compiledExecutableDir, ConfigError, loadConfig } from "./config/load.ts";
import { buildServices, type Services } from "./services.ts";
import { createApp } from "./app.ts";
import { startServer } from "./http/server.ts";
import { log } from "./log/logger.ts";
import { isLoopbackHost } from "./http/loopback.ts";
import { backupDestination, backupLocalDatabase } from "./sqlite/backup.ts";
import { SERVICE_VERSION } from "./version.ts";
import { isProblem } from "./errors/domain_error.ts";

/** `--help`: every flag and exit status. */
const USAGE = `usage: deno task start [--config PATH]      (or: rdf-content-service [flags])

Serves the RDF content service as customer.yml says (see docs/configuration.md).

  --config PATH       the configuration file (default: $CUSTOMER_YML, else customer.yml
                      beside the executable or in the working directory, else built-in defaults)
  --health-check      exit 0 when the configured server answers GET /health within 3 s, else 1
  --backup DEST       write an online backup of the SQLite file to DEST and exit
                      (deno task backup DEST)
  --version           print the version and exit
  -h, --help          this text

exit status: 0 stopped by SIGTERM/SIGINT, or a flag's work done; 1 a failure (a backup that
could not be made, a failed health check); 2 an unusable configuration or command line.`;

/** The flags main.ts reads; anything else is refused. */
const FLAGS = {
  config: { type: "string" },
  "health-check": { type: "boolean" },
  backup: { type: "string" },
  version: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** How long requests in flight may run on after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 8_000;

async function main(): Promise<number> {
  // Before anything is read or started: `--help` anywhere (even after `--backup`).
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  try {
    parseArgs({ args: Deno.args, options: FLAGS, strict: true, allowPositionals: false });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  // Before the configuration: `--version` needs none (scripts/compile.ts asks a fresh build).
  if (Deno.args.includes("--version")) {
    console.log(`rdf-content-service ${SERVICE_VERSION}`);
    return 0;
  }
  let loaded;
  try {
    loaded = loadConfig({ args: Deno.args, executableDir: compiledExecutableDir() });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  const { config, source } = loaded;
  const { host, port } = config.service.http;
  if (Deno.args.includes("--health-check")) return await checkHealth(host, port);
  if (Deno.args.some((arg) => arg === "--backup" || arg.startsWith("--backup="))) {
    return await backup(config.service.data.dir);
  }
  log("info", "configuration loaded", { source });
  const { tokens, oidc } = config.service.security;
  if (tokens.length === 0 && oidc.issuer === undefined && !isLoopbackHost(host)) {
    console.error(
      `Refusing to listen on ${host} without access tokens: configure service.security.tokens ` +
        "or service.security.oidc, or bind to a loopback address (127.0.0.1, ::1, localhost).",
    );
    return 2;
  }
  let services;
  let app;
  try {
    services = buildServices(config);
    app = createApp(services.deps);
  } catch (error) {
    // Files the configuration names (shapes, CA files) are read here; a bad one is a bad
    // configuration.
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  try {
    await services.checkStore();
  } catch (error) {
    // A store that cannot be driven would be corrupted: refuse, naming what it lacks. A
    // store that cannot be reached yet is /ready's business, not a reason to stay down.
    if (isProblem(error, "store-incapable")) {
      console.error(error.message);
      await services.close();
      return 2;
    }
    log("warn", "store capability check deferred", {
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  if (!(await searchCapable(services))) {
    await services.close();
    return 2;
  }
  const server = await startServer(app, {
    host,
    port,
    bodyStallMs: config.service.http.bodyStallMs,
  });
  log("info", "listening", {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`,
    store: config.service.store.backend,
    search: config.service.search.backend,
    dataDir: config.service.data.dir,
  });
  let stopping = false;
  const stop = async () => {
    // A second signal while draining cuts the drain short.
    if (stopping) Deno.exit(1);
    stopping = true;
    log("info", "shutting down");
    // Requests in flight may finish; a container's stop timeout is 10 s by default.
    await server.close({ graceMs: SHUTDOWN_GRACE_MS });
    await services.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  return -1;
}

/**
 * Refuses to start on a search engine that lacks what the service needs (an OpenSearch
 * without the analysis-common module the mappings use): every index creation would fail.
 * One that cannot be asked now is not held against the start (an outage is not a
 * misconfiguration); what it refuses later goes to the outbox's dead letters.
 */
async function searchCapable(services: Services): Promise<boolean> {
  const search = services.deps.search;
  if (search.missingCapabilities === undefined) return true;
  let missing: string[];
  try {
    missing = await search.missingCapabilities();
  } catch (error) {
    log("warn", "could not ask the search engine what it lacks at start", {
      error: error instanceof Error ? error.message : String(error),
    });
    return true;
  }
  for (const line of missing) {
    console.error(
      `Refusing to start: ${line}. Install the module (it ships with the full distribution) ` +
        "or use a node that has it.",
    );
  }
  return missing.length === 0;
}

/** `--health-check`: exit 0 when the configured server answers /health (container probes). */
async function checkHealth(host: string, port: number): Promise<number> {
  const target = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  try {
    const url = `http://${target.includes(":") ? `[${target}]` : target}:${port}/health`;
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await response.body?.cancel();
    return response.ok ? 0 : 1;
  } catch {
    return 1;
  }
}

/** `--backup DEST`: an online copy of the SQLite file; prints a JSON report, exit 0 on success. */
async function backup(dataDir: string): Promise<number> {
  try {
    const destination = backupDestination(Deno.args)!;
    console.log(JSON.stringify(await backupLocalDatabase(dataDir, destination)));
    return 0;
  } catch (error) {
    // Usage errors and SQLite's own (disk full, locked) alike: one line, no stack trace.
    console.error(`Backup failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

const code = await main();
if (code >= 0) Deno.exit(code);
