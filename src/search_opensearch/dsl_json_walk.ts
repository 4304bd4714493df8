/**
 * Reading a parsed JSON body against expectations, naming each value by its JSON pointer
 * (RFC 6901): the typed checks the query DSL gate's grammar (dsl_gate.ts) is written in.
 * A check that fails throws a {@link Refusal}, which stops the walk at the first one.
 */
import {
  MAX_ARRAY_LENGTH,
  MAX_STRING_LENGTH,
  NAMED_REFUSALS,
  PLAIN_DEPTH,
} from "./dsl_allow_lists.ts";

/** A JSON object of the body. */
export type Json = Record<string, unknown>;

/** Thrown inside the walk to stop at the first refusal. */
export class Refusal {
  constructor(readonly path: string, readonly message: string) {}
}

/** Typed checks of a body's values; each refuses at the value's JSON pointer. */
export class JsonWalk {
  /**
   * An object whose keys are all in `plain` or `walked`: values of `plain` keys must be
   * {@link plainValue}s, those of `walked` keys the caller checks itself.
   */
  parameters(
    value: unknown,
    path: string,
    plain: readonly string[],
    walked: readonly string[] = [],
  ): Json {
    const object = this.object(value, path);
    for (const [key, entry] of Object.entries(object)) {
      const at = `${path}/${escape(key)}`;
      if (walked.includes(key)) continue;
      this.allowedKey(key, at, plain);
      this.plainValue(entry, at, PLAIN_DEPTH);
    }
    return object;
  }

  /**
   * Scalars, and arrays and objects of them `depth` levels deep (`order`, `ranges`,
   * `extended_bounds`): data, never a clause, so a refused key name is refused here too.
   */
  plainValue(value: unknown, path: string, depth: number): void {
    if (!Array.isArray(value) && !isObject(value)) return this.scalar(value, path);
    if (depth === 0) this.refuse(path, "nested too deep for an option");
    if (Array.isArray(value)) {
      this.array(value, path).forEach((entry, index) =>
        this.plainValue(entry, `${path}/${index}`, depth - 1)
      );
      return;
    }
    for (const [key, entry] of Object.entries(value)) {
      const at = `${path}/${escape(key)}`;
      if (key in NAMED_REFUSALS) this.refuse(at, NAMED_REFUSALS[key]);
      this.string(key, at);
      this.plainValue(entry, at, depth - 1);
    }
  }

  allowedKey(key: string, path: string, allowed: ReadonlySet<string> | readonly string[]): void {
    const known = allowed instanceof Set ? allowed.has(key) : (allowed as string[]).includes(key);
    if (!known) this.refuse(path, NAMED_REFUSALS[key] ?? `${key} is not accepted here`);
  }

  bounded(options: Json, path: string, key: string, limit: number): void {
    const value = options[key];
    if (value === undefined) return;
    const number = typeof value === "string" ? Number(value) : value;
    if (typeof number !== "number" || !(number <= limit)) {
      this.refuse(`${path}/${key}`, `${key} is at most ${limit}`);
    }
  }

  fieldNames(value: unknown, path: string): void {
    if (value === undefined) return;
    if (typeof value === "string") return this.fieldName(value, path);
    this.array(value, path).forEach((name, index) => this.fieldName(name, `${path}/${index}`));
  }

  fieldName(value: unknown, path: string): void {
    this.string(value, path);
    if (value === "") this.refuse(path, "expected a field name");
  }

  scalarObject(value: unknown, path: string): void {
    for (const [key, entry] of Object.entries(this.object(value, path))) {
      this.scalar(entry, `${path}/${escape(key)}`);
    }
  }

  scalars(value: unknown, path: string): void {
    this.array(value, path).forEach((entry, index) => this.scalar(entry, `${path}/${index}`));
  }

  optionalScalar(value: unknown, path: string): void {
    if (value !== undefined) this.scalar(value, path);
  }

  scalar(value: unknown, path: string): void {
    if (typeof value === "string") return this.string(value, path);
    if (typeof value === "number" || typeof value === "boolean" || value === null) return;
    this.refuse(path, "expected a string, a number or a boolean");
  }

  string(value: unknown, path: string): void {
    if (typeof value !== "string") this.refuse(path, "expected a string");
    if ((value as string).length > MAX_STRING_LENGTH) {
      this.refuse(path, `strings are at most ${MAX_STRING_LENGTH} characters`);
    }
  }

  number(value: unknown, path: string): void {
    const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof number !== "number" || !Number.isFinite(number)) {
      this.refuse(path, "expected a number");
    }
  }

  boolean(value: unknown, path: string): void {
    if (typeof value !== "boolean") this.refuse(path, "expected true or false");
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.refuse(path, "expected an array");
    const array = value as unknown[];
    if (array.length > MAX_ARRAY_LENGTH) {
      this.refuse(path, `arrays hold at most ${MAX_ARRAY_LENGTH} elements`);
    }
    return array;
  }

  object(value: unknown, path: string): Json {
    if (!isObject(value)) this.refuse(path, "expected an object");
    return value as Json;
  }

  refuse(path: string, message: string): never {
    throw new Refusal(path === "" ? "/" : path, message);
  }
}

/** A JSON pointer reference token (RFC 6901). */
export function escape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
