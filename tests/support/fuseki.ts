/**
 * Apache Jena Fuseki for integration tests: the endpoints named by the environment, and
 * extra instances started (and killed) through `scripts/fuseki.sh`.
 */
import { fileURLToPath } from "node:url";

/** The SPARQL endpoints of one Fuseki dataset, plus credentials when it needs them. */
export interface SparqlEndpoints {
  queryUrl: string;
  updateUrl: string;
  graphStoreUrl: string;
  username?: string;
  password?: string;
}

/** The message the suite prints when no endpoint is configured. */
export const SPARQL_SUITE_SKIPPED =
  "SPARQL backend suite skipped: set SERVICE_SPARQL_QUERY_URL, SERVICE_SPARQL_UPDATE_URL and " +
  'SERVICE_SPARQL_GSP_URL (scripts/fuseki.sh start; eval "$(scripts/fuseki.sh env)")';

/**
 * The endpoints from `SERVICE_SPARQL_QUERY_URL`, `SERVICE_SPARQL_UPDATE_URL`,
 * `SERVICE_SPARQL_GSP_URL` (and `SERVICE_SPARQL_USER`/`_PASSWORD`), or undefined when any
 * URL is missing.
 */
export function sparqlEndpointsFromEnv(): SparqlEndpoints | undefined {
  const queryUrl = Deno.env.get("SERVICE_SPARQL_QUERY_URL");
  const updateUrl = Deno.env.get("SERVICE_SPARQL_UPDATE_URL");
  const graphStoreUrl = Deno.env.get("SERVICE_SPARQL_GSP_URL");
  if (!queryUrl || !updateUrl || !graphStoreUrl) return undefined;
  return {
    queryUrl,
    updateUrl,
    graphStoreUrl,
    username: Deno.env.get("SERVICE_SPARQL_USER") || undefined,
    password: Deno.env.get("SERVICE_SPARQL_PASSWORD") || undefined,
  };
}

/** The endpoints of dataset `/ds` of a Fuseki on `port` (loopback). */
export function fusekiEndpoints(port: number): SparqlEndpoints {
  const base = `http://127.0.0.1:${port}/ds`;
  return { queryUrl: `${base}/query`, updateUrl: `${base}/update`, graphStoreUrl: `${base}/data` };
}

/** How to start an extra Fuseki instance. */
export interface FusekiInstanceOptions {
  port: number;
  /** Holds the pid file and the log. */
  runDir: string;
  /** A persistent TDB2 dataset here; in memory when absent. */
  tdb2Dir?: string;
  /** Basic auth for every endpoint, users from this file ("user: password" lines). */
  passwdFile?: string;
  /**
   * Queries see the union of the named graphs as their default graph (TDB2's
   * `unionDefaultGraph`; needs `tdb2Dir`).
   */
  unionDefaultGraph?: boolean;
}

/** An extra Fuseki started by a test: it must be stopped by that test. */
export class FusekiInstance {
  readonly options: FusekiInstanceOptions;

  constructor(options: FusekiInstanceOptions) {
    this.options = options;
  }

  /** The instance's endpoints (without credentials). */
  get endpoints(): SparqlEndpoints {
    return fusekiEndpoints(this.options.port);
  }

  /** Starts it and waits until it answers (the script is idempotent). */
  async start(): Promise<void> {
    await this.#script("start");
  }

  /** Stops it gracefully and waits. */
  async stop(): Promise<void> {
    await this.#script("stop");
  }

  /** SIGKILLs the server process and waits until it is gone. */
  async kill(): Promise<void> {
    const pid = Number((await Deno.readTextFile(`${this.options.runDir}/fuseki.pid`)).trim());
    Deno.kill(pid, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while (await processExists(pid)) {
      if (Date.now() > deadline) throw new Error(`Fuseki pid ${pid} survived SIGKILL`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async #script(command: "start" | "stop"): Promise<void> {
    const env: Record<string, string> = {
      FUSEKI_PORT: String(this.options.port),
      FUSEKI_RUN_DIR: this.options.runDir,
    };
    if (this.options.tdb2Dir) env.FUSEKI_TDB2_DIR = this.options.tdb2Dir;
    if (this.options.passwdFile) env.FUSEKI_PASSWD_FILE = this.options.passwdFile;
    if (this.options.unionDefaultGraph) env.FUSEKI_UNION_DEFAULT_GRAPH = "true";
    const output = await new Deno.Command("bash", {
      args: [FUSEKI_SCRIPT, command],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const decoder = new TextDecoder();
      throw new Error(
        `scripts/fuseki.sh ${command} failed:\n${decoder.decode(output.stdout)}` +
          decoder.decode(output.stderr),
      );
    }
  }
}

const FUSEKI_SCRIPT = fileURLToPath(new URL("../../scripts/fuseki.sh", import.meta.url));

async function processExists(pid: number): Promise<boolean> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    // A killed process whose parent has not reaped it yet is a zombie: it no longer runs.
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}
