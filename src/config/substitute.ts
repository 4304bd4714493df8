/**
 * `${VAR:default}` and `${VAR}` references in configuration values.
 *
 * Substitution happens on the parsed YAML tree (string leaves only), before validation, so
 * a number or boolean written as a reference is typed by the schema afterwards.
 */

/** A reference to an environment variable that is unset and has no default. */
export class MissingEnvironmentVariable extends Error {
  constructor(readonly variable: string, readonly path: string) {
    super(`${path}: environment variable ${variable} is required but not set`);
    this.name = "MissingEnvironmentVariable";
  }
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

/** Looks a variable up; tests pass their own map instead of the process environment. */
export type EnvLookup = (name: string) => string | undefined;

/** Replaces every reference in every string of `tree`; `path` names the key for errors. */
export function substituteEnv(tree: unknown, env: EnvLookup, path = ""): unknown {
  if (typeof tree === "string") return substituteString(tree, env, path);
  if (Array.isArray(tree)) {
    return tree.map((value, index) => substituteEnv(value, env, `${path}[${index}]`));
  }
  if (tree !== null && typeof tree === "object") {
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(tree)) {
      result[key] = substituteEnv(value, env, path ? `${path}.${key}` : key);
    }
    return result;
  }
  return tree;
}

function substituteString(value: string, env: EnvLookup, path: string): string {
  return value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const found = env(name);
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    throw new MissingEnvironmentVariable(name, path || "(root)");
  });
}
