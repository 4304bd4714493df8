/**
 * Entry point: read customer.yml, build the services, serve. Exits non-zero with the key
 * path and the reason when the configuration is unusable. `--version` prints
 * `rdf-content-service <version>` and exits.
 */
import { compiledExecutableDir, ConfigError, loadConfig } from "./config/load.ts";
import { buildServices } from "./services.ts";
import { createApp } from "./app.ts";
import { startServer } from "./http/server.ts";
import { log } from "./log/logger.ts";
import { isLoopbackHost } from "./http/loopback.ts";
import { backupDestination, backupLocalDatabase } from "./store/sqlite/backup.ts";
import { SERVICE_VERSION } from "./version.ts";
import { StoreIncapable } from "./store/remote_sparql/capabilities.ts";

/** How long requests in flight may run on after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 8_000;

async function main(): Promise<number> {
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
    return backup(config.service.data.dir);
  }
  log("info", "configuration loaded", { source });
  if (config.service.security.tokens.length === 0 && !isLoopbackHost(host)) {
    console.error(
      `Refusing to listen on ${host} without access tokens: configure service.security.tokens ` +
        "or bind to a loopback address (127.0.0.1, ::1, localhost).",
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
    if (error instanceof StoreIncapable) {
      console.error(error.message);
      await services.close();
      return 2;
    }
    log("warn", "store capability check deferred", {
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  const server = await startServer(app, { host, port });
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
function backup(dataDir: string): number {
  try {
    const destination = backupDestination(Deno.args)!;
    console.log(JSON.stringify(backupLocalDatabase(dataDir, destination)));
    return 0;
  } catch (error) {
    // Usage errors and SQLite's own (disk full, locked) alike: one line, no stack trace.
    console.error(`Backup failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

const code = await main();
if (code >= 0) Deno.exit(code);
