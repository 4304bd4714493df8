/**
 * Finding, reading and validating `customer.yml`.
 *
 * Search order (docs/api.md): `--config PATH`, `$CUSTOMER_YML`, `./customer.yml`, the copy beside
 * the executable, else the built-in defaults. The first that exists wins; the result says
 * which, so start-up can log it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseDocument } from "yaml";
import { configSchema, type ServiceConfig, tokenSchema } from "./schema.ts";
import { type EnvLookup, MissingEnvironmentVariable, substituteEnv } from "./substitute.ts";
import { BUILT_IN_CUSTOMER_YML } from "./defaults.ts";

/** A configuration that cannot be used: start-up stops with this message. */
export class ConfigError extends Error {
  constructor(readonly source: string, readonly problems: string[]) {
    super(`Invalid configuration (${source}):\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** A loaded configuration and where it came from. */
export interface LoadedConfig {
  config: ServiceConfig;
  /** A file path, or `built-in defaults`. */
  source: string;
}

/** Where to look, and which environment to substitute from. */
export interface ConfigSources {
  /** Command-line arguments (only `--config PATH` / `--config=PATH` is read). */
  args?: string[];
  env?: EnvLookup;
  cwd?: string;
  /** Directory of the running executable; undefined when running under `deno run`. */
  executableDir?: string;
}

/** Finds the configuration file per the search order, or undefined for built-in defaults. */
export function findConfigFile(sources: ConfigSources): string | undefined {
  const env = sources.env ?? ((name: string) => Deno.env.get(name));
  const cwd = sources.cwd ?? Deno.cwd();
  const explicit = configArgument(sources.args ?? []);
  if (explicit !== undefined) return mustExist(resolve(cwd, explicit), "--config");
  const fromEnv = env("CUSTOMER_YML");
  if (fromEnv) return mustExist(resolve(cwd, fromEnv), "CUSTOMER_YML");
  const local = join(cwd, "customer.yml");
  if (existsSync(local)) return local;
  if (sources.executableDir) {
    const beside = join(sources.executableDir, "customer.yml");
    if (existsSync(beside)) return beside;
  }
  return undefined;
}

/** Loads and validates the configuration; throws {@link ConfigError} on any problem. */
export function loadConfig(sources: ConfigSources = {}): LoadedConfig {
  const path = findConfigFile(sources);
  const text = path === undefined ? BUILT_IN_CUSTOMER_YML : readFileSync(path, "utf8");
  const source = path ?? "built-in defaults";
  return { config: parseConfigText(text, source, sources.env), source };
}

/** Parses YAML text into a validated configuration. */
export function parseConfigText(
  text: string,
  source: string,
  env: EnvLookup = (name) => Deno.env.get(name),
): ServiceConfig {
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      source,
      document.errors.map((error) => {
        const where = error.linePos?.[0];
        return `${where ? `line ${where.line}, column ${where.col}: ` : ""}${
          error.message.split("\n")[0]
        }`;
      }),
    );
  }
  let substituted: unknown;
  try {
    substituted = substituteEnv(document.toJS() ?? {}, env);
  } catch (error) {
    if (error instanceof MissingEnvironmentVariable) throw new ConfigError(source, [error.message]);
    throw error;
  }
  const result = configSchema.safeParse(substituted);
  const fromEnv = environmentTokens(env);
  const problems = [
    ...(result.error?.issues ?? []).map((issue) =>
      `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`
    ),
    ...fromEnv.problems,
  ];
  if (problems.length > 0) throw new ConfigError(source, problems);
  const config = result.data!;
  config.service.security.tokens.push(...fromEnv.tokens);
  return config;
}

/** The environment variables that each add a bearer token of their role. */
export const TOKEN_VARIABLES = {
  SERVICE_ADMIN_TOKEN: "admin",
  SERVICE_EDITOR_TOKEN: "editor",
  SERVICE_READER_TOKEN: "reader",
} as const;

/**
 * Tokens from {@link TOKEN_VARIABLES}, beside those of `service.security.tokens`, so a
 * container starts with environment variables alone. Each is validated like a configured
 * token and named after its variable (the name 403 messages show); an empty one is unset.
 */
function environmentTokens(env: EnvLookup) {
  const tokens: ServiceConfig["service"]["security"]["tokens"] = [];
  const problems: string[] = [];
  for (const [variable, role] of Object.entries(TOKEN_VARIABLES)) {
    const token = env(variable);
    if (!token) continue;
    const result = tokenSchema.safeParse({ name: variable, token, role });
    if (result.success) tokens.push(result.data);
    else problems.push(...result.error.issues.map((issue) => `${variable}: ${issue.message}`));
  }
  return { tokens, problems };
}

/** The directory of a compiled executable; undefined under `deno run`. */
export function compiledExecutableDir(): string | undefined {
  const exec = Deno.execPath();
  const base = exec.split(/[\\/]/).pop() ?? "";
  return base === "deno" || base === "deno.exe" ? undefined : dirname(exec);
}

function configArgument(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--config") {
      if (i + 1 >= args.length) throw new ConfigError("--config", ["--config needs a path"]);
      return args[i + 1];
    }
    if (args[i].startsWith("--config=")) return args[i].slice("--config=".length);
  }
  return undefined;
}

function mustExist(path: string, via: string): string {
  if (!existsSync(path)) throw new ConfigError(path, [`${via} names a file that does not exist`]);
  return path;
}
