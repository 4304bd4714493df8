/**
 * The service as a separate OS process (`deno run src/main.ts`), for tests that kill it,
 * restart it or measure its memory.
 */

import { freePort } from "./ports.ts";

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname;

/** A running service process. */
export interface ServiceProcess {
  url: string;
  pid: number;
  /** Resident set size of the process, in bytes (Linux /proc). */
  rss(): number;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
  /** Resolves with the exit status once the process has ended. */
  status: Promise<Deno.CommandStatus>;
  /** What the process has written to stderr so far (its log at LOG_LEVEL and above). */
  stderr(): string;
}

/** How to start the process, beyond its environment. */
export interface ServiceProcessOptions {
  timeoutMs?: number;
  /** Working directory (where `./customer.yml` is looked for); this process's by default. */
  cwd?: string;
  /** Start from an empty environment rather than this process's (PATH, HOME, DENO_DIR kept). */
  clearEnv?: boolean;
}

/** Starts the service with `env` (data dir, config) and waits until /health answers. */
export async function startServiceProcess(
  env: Record<string, string>,
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    // Exactly the permissions `deno task start` ships with: a step that needs more (SQLite's
    // ATTACH, which VACUUM uses, needs every permission in Deno) fails here as it would for users.
    args: ["run", ...shippedPermissionFlags(), ...v8Flags(), MAIN],
    cwd: options.cwd,
    clearEnv: options.clearEnv,
    env: {
      ...(options.clearEnv ? denoEssentials() : {}),
      LOG_LEVEL: "warn",
      SERVICE_HTTP_PORT: String(port),
      ...env,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr: string[] = [];
  const decoder = new TextDecoder();
  child.stderr.pipeTo(
    new WritableStream({ write: (chunk) => void stderr.push(decoder.decode(chunk)) }),
  ).catch(() => {});
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let ended = false;
  child.status.then(() => ended = true);
  while (true) {
    try {
      const response = await fetch(`${url}/health`);
      await response.body?.cancel();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (ended || Date.now() > deadline) {
      try {
        child.kill("SIGKILL");
      } catch {
        // it exited on its own (a refused start): its status and stderr say why
      }
      const { code } = await child.status;
      throw new Error(`service did not start (exit ${code}): ${stderr.join("")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exited = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
    await child.status;
  };
  return {
    url,
    pid: child.pid,
    rss: () => {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      const match = status.match(/^VmRSS:\s+(\d+) kB/m);
      return match ? Number(match[1]) * 1024 : 0;
    },
    status: child.status,
    stderr: () => stderr.join(""),
    kill: () => exited("SIGKILL"),
    stop: () => exited("SIGTERM"),
  };
}

/** What `deno` itself needs from the environment: its cache and the PATH. */
function denoEssentials(): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/**
 * `--v8-flags` for the service process: those `deno task start` runs it with (its heap
 * bound), so that tests and benches measure the service as shipped, then `RCS_V8_FLAGS` to
 * profile it under a bench (e.g. `--prof,--no-logfile-per-isolate,--logfile=/tmp/v8.log`,
 * then `node --prof-process /tmp/v8.log`).
 */
function v8Flags(): string[] {
  const flags = [...shippedV8Flags()];
  const extra = Deno.env.get("RCS_V8_FLAGS");
  if (extra) flags.push(...extra.split(","));
  return flags.length > 0 ? [`--v8-flags=${flags.join(",")}`] : [];
}

/** The permission flags of deno.json's `start` task (`--allow-net`, `--allow-read`, …). */
export function shippedPermissionFlags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const flags = (config.tasks.start as string).split(/\s+/).filter((arg) =>
    arg.startsWith("--allow-")
  );
  if (flags.length === 0) throw new Error("deno.json's start task names no permission");
  return flags;
}

/** The V8 flags of deno.json's `start` task. */
export function shippedV8Flags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const given = /--v8-flags=(\S+)/.exec(config.tasks.start);
  return given ? given[1].split(",") : [];
}
