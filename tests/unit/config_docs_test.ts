/**
 * The configuration schema (`src/config/schema.ts`) owns every default value. The shipped
 * customer.yml and docs/configuration.md repeat them for their readers; these tests hold
 * both to the schema: the page names every key of the schema, every environment variable
 * of the shipped file and those read without one (tokens); every default the page or the
 * file states is the schema's; and each key's environment variable on the page is the one
 * the shipped file wires to it. A failure names the key.
 */
import { strict as assert } from "node:assert";
import { parseDocument } from "yaml";
import { configSchema } from "../../src/config/schema.ts";
import { parseConfigText, TOKEN_VARIABLES } from "../../src/config/load.ts";

const DOC = Deno.readTextFileSync(new URL("../../docs/configuration.md", import.meta.url));
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));

/** The parts of a zod 4 schema definition this walk reads. */
interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  element?: { _zod: { def: SchemaDef } };
  innerType?: { _zod: { def: SchemaDef } };
  in?: { _zod: { def: SchemaDef } };
  out?: { _zod: { def: SchemaDef } };
  defaultValue?: unknown;
}

/** A key of the schema and its default, if it has one. */
interface SchemaKey {
  key: string;
  /** Whether the schema gives the key a value when it is left out. */
  defaulted: boolean;
  value?: unknown;
  /** A key of the schema's leaves (not an array of objects, listed for its default). */
  leaf: boolean;
}

const ROOT_DEF = (configSchema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The definition under wrappers (default, optional, preprocess pipes, transforms' input). */
function unwrapped(def: SchemaDef): SchemaDef {
  switch (def.type) {
    case "default":
    case "prefault":
    case "optional":
    case "nullable":
      return unwrapped(def.innerType!._zod.def);
    case "pipe": {
      // A transform's keys are those it reads: the pipe's input side.
      const out = def.out!._zod.def;
      return unwrapped(out.type === "transform" ? def.in!._zod.def : out);
    }
    default:
      return def;
  }
}

/**
 * The schema's keys as dotted paths (`service.http.port`, `workspaces[].uri`), each with the
 * default of the nearest `.default()` wrapping it. Records count as leaves; an array of
 * objects is listed itself (with its default) and its elements' keys with their own.
 * `.prefault({})` on objects is not a value anyone writes: it is looked through.
 */
function schemaKeys(def: SchemaDef, path = "", found?: { value: unknown }): SchemaKey[] {
  const own = (): SchemaKey => ({
    key: path,
    defaulted: found !== undefined,
    value: found?.value,
    leaf: true,
  });
  switch (def.type) {
    case "object":
      return Object.entries(def.shape!).flatMap(([key, child]) =>
        schemaKeys(child._zod.def, path ? `${path}.${key}` : key)
      );
    case "array": {
      const element = def.element!._zod.def;
      if (unwrapped(element).type !== "object") {
        return [{ ...own(), key: `${path}[]` }];
      }
      return [{ ...own(), leaf: false }, ...schemaKeys(element, `${path}[]`)];
    }
    case "default":
      return schemaKeys(def.innerType!._zod.def, path, found ?? { value: def.defaultValue });
    case "prefault":
    case "optional":
    case "nullable":
      return schemaKeys(def.innerType!._zod.def, path, found);
    case "pipe": {
      const out = def.out!._zod.def;
      return schemaKeys(out.type === "transform" ? def.in!._zod.def : out, path, found);
    }
    default:
      return [own()];
  }
}

const SCHEMA_KEYS = schemaKeys(ROOT_DEF);
const KEYS = SCHEMA_KEYS.filter((entry) => entry.leaf).map((entry) => entry.key);

/** One row of a table on the page: its cells by column heading. */
type Row = Record<string, string>;

/** Every table row of the page, cells keyed by their column's heading. */
function tableRows(markdown: string): Row[] {
  const rows: Row[] = [];
  let headings: string[] | undefined;
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("|")) {
      headings = undefined;
      continue;
    }
    // `\|` inside a cell is text, not a column break.
    const cells = line.slice(
      1,
      line.trimEnd().endsWith("|") ? line.trimEnd().length - 1 : undefined,
    )
      .split(/(?<!\\)\|/).map((cell) => cell.trim());
    if (headings === undefined) headings = cells;
    else if (!cells.every((cell) => /^:?-+:?$/.test(cell))) {
      rows.push(Object.fromEntries(headings.map((heading, at) => [heading, cells[at] ?? ""])));
    }
  }
  return rows;
}

/** The page's row for `key` (its first cell names it in backticks), and that cell. */
function rowOf(rows: Row[], key: string): Row | undefined {
  return rows.find((row) => (Object.values(row)[0] ?? "").includes(`\`${key}\``));
}

/** What a Default cell states: a value in backticks, `empty` (""), or nothing (—, prose). */
function statedDefault(cell: string): string | undefined {
  const literal = /^`([^`]*)`/.exec(cell);
  if (literal) return literal[1];
  return cell === "empty" ? "" : undefined;
}

/** A default as the page writes it: lists of names comma-separated, as the variables take them. */
function written(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.join(",");
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The value at a dotted path of a plain object (no arrays). */
function at(root: unknown, key: string): unknown {
  return key.split(".").reduce<unknown>(
    (value, name) => (value as Record<string, unknown> | undefined)?.[name],
    root,
  );
}

/** The shipped file's `${VAR…}` references by the key they fill. */
function shippedVariables(): Map<string, string> {
  const wired = new Map<string, string>();
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string") {
      const match = /^\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(value);
      if (match) wired.set(path, match[1]);
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
    }
  };
  walk(parseDocument(SHIPPED).toJS(), "");
  return wired;
}

Deno.test("the schema walk finds nested keys and defaults (it would otherwise check nothing)", () => {
  for (
    const key of [
      "service.http.port",
      "service.store.sparql.graphTemplate",
      "service.hash.maxWorkFactor",
      "service.security.tokens[].role",
      "workspaces[].collections[].initialize[].construct",
    ]
  ) assert.ok(KEYS.includes(key), `${key} not found by the walk: ${KEYS.join(", ")}`);
  const defaultOf = (key: string) => SCHEMA_KEYS.find((entry) => entry.key === key);
  assert.deepEqual(defaultOf("service.http.port"), {
    key: "service.http.port",
    defaulted: true,
    value: 8080,
    leaf: true,
  });
  assert.deepEqual(defaultOf("service.search.opensearch.node")?.value, ["http://127.0.0.1:9200"]);
  assert.deepEqual(defaultOf("service.security.tokens")?.value, []);
  assert.equal(defaultOf("service.security.tokens[].role")?.defaulted, false);
  assert.equal(defaultOf("workspaces[].initialize[].from")?.value, "body");
  assert.equal(defaultOf("service.store.sparql.queryUrl")?.defaulted, false);
});

Deno.test("the page's table reader reads cells by heading, escaped bars included", () => {
  const rows = tableRows(
    "| Key | Default | Meaning |\n| --- | ------- | ------- |\n| `a.b` | `1` | x `(a\\|b)` y |\n\n" +
      "| Key | Meaning |\n| --- | --- |\n| `c` | z |",
  );
  assert.deepEqual(rows, [
    { Key: "`a.b`", Default: "`1`", Meaning: "x `(a\\|b)` y" },
    { Key: "`c`", Meaning: "z" },
  ]);
  assert.equal(statedDefault("`16777216` (16 MiB)"), "16777216");
  assert.equal(statedDefault("the `queryUrl`"), undefined);
  assert.equal(statedDefault("—"), undefined);
  assert.equal(statedDefault("empty"), "");
});

Deno.test("docs/configuration.md names every configuration key", () => {
  const missing = KEYS.filter((key) => !DOC.includes(`\`${key}\``));
  assert.deepEqual(missing, [], "add these keys to docs/configuration.md");
});

Deno.test("docs/configuration.md states the schema's default of every key, and no other", () => {
  const rows = tableRows(DOC);
  const wrong: string[] = [];
  for (const { key, defaulted, value, leaf } of SCHEMA_KEYS) {
    const row = rowOf(rows, key);
    if (!row) {
      // Every leaf is on the page (the test above); an array of objects may not be.
      if (leaf) wrong.push(`${key}: no table row`);
      continue;
    }
    if (!("Default" in row)) {
      wrong.push(`${key}: its table has no Default column`);
      continue;
    }
    const stated = statedDefault(row.Default);
    if (!defaulted && stated !== undefined) {
      wrong.push(`${key}: the page says ${JSON.stringify(stated)}, the schema has no default`);
    } else if (defaulted && stated !== written(value)) {
      wrong.push(
        `${key}: the page says ${JSON.stringify(row.Default)}, the schema ${
          JSON.stringify(written(value))
        }`,
      );
    }
  }
  assert.deepEqual(wrong, [], "make docs/configuration.md say what src/config/schema.ts does");
});

Deno.test("the shipped customer.yml sets every service key to the schema's default", () => {
  const shipped = parseConfigText(SHIPPED, "customer.yml", () => undefined).service;
  const defaults = configSchema.parse({}).service;
  const wrong = SCHEMA_KEYS
    .filter(({ key }) => key.startsWith("service.") && !key.includes("[]"))
    .map(({ key }) => key.slice("service.".length))
    .filter((key) => JSON.stringify(at(shipped, key)) !== JSON.stringify(at(defaults, key)))
    .map((key) =>
      `service.${key}: customer.yml gives ${JSON.stringify(at(shipped, key))}, the schema ${
        JSON.stringify(at(defaults, key))
      }`
    );
  assert.deepEqual(wrong, [], "make customer.yml's defaults (${VAR:default}) the schema's");
});

Deno.test("docs/configuration.md names, for each key, the variable customer.yml wires to it", () => {
  const rows = tableRows(DOC);
  const wired = shippedVariables();
  assert.ok(wired.size >= 10, `the walk found ${wired.size} references in customer.yml`);
  const wrong: string[] = [];
  for (const { key } of SCHEMA_KEYS) {
    const row = rowOf(rows, key);
    if (!row) continue;
    const [first] = Object.values(row);
    // A table without the column names the variable beside the key: `key` (`VAR`).
    const cell = row["Env var"] ?? /\(`(SERVICE_[A-Z0-9_]+)`\)/.exec(first)?.[0] ?? "—";
    const named = /`([A-Z][A-Z0-9_]*)`/.exec(cell)?.[1];
    if (named !== wired.get(key)) {
      wrong.push(
        `${key}: the page names ${named ?? "none"}, customer.yml ${wired.get(key) ?? "none"}`,
      );
    }
  }
  assert.deepEqual(wrong, [], "make the Env var column of docs/configuration.md customer.yml's");
});

Deno.test("docs/configuration.md names every environment variable of customer.yml", () => {
  const variables = [...SHIPPED.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
  assert.ok(variables.length >= 10);
  const missing = [...new Set(variables)].filter((name) => !DOC.includes(`\`${name}\``));
  assert.deepEqual(missing, [], "add these variables to docs/configuration.md");
});

Deno.test("docs/configuration.md names the variables read without customer.yml (tokens)", () => {
  const missing = Object.keys(TOKEN_VARIABLES).filter((name) => !DOC.includes(`\`${name}\``));
  assert.deepEqual(missing, [], "add these variables to docs/configuration.md");
});
