/**
 * docs/configuration.md names every key of the configuration schema, every environment
 * variable of the shipped customer.yml and those read without one (tokens), so the
 * reference cannot fall behind the code.
 */
import { strict as assert } from "node:assert";
import { configSchema } from "../../src/config/schema.ts";
import { TOKEN_VARIABLES } from "../../src/config/load.ts";

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
}

/**
 * Dotted paths of the schema's leaves (`service.http.port`, `workspaces[].uri`); wrappers
 * (default, optional, preprocess pipes, and the input side of transforms) are looked
 * through, records count as leaves.
 */
function leafKeys(def: SchemaDef, path = ""): string[] {
  switch (def.type) {
    case "object":
      return Object.entries(def.shape!).flatMap(([key, child]) =>
        leafKeys(child._zod.def, path ? `${path}.${key}` : key)
      );
    case "array":
      return leafKeys(def.element!._zod.def, `${path}[]`);
    case "default":
    case "prefault":
    case "optional":
    case "nullable":
      return leafKeys(def.innerType!._zod.def, path);
    case "pipe": {
      // A transform's keys are those it reads: the pipe's input side.
      const out = def.out!._zod.def;
      return leafKeys(out.type === "transform" ? def.in!._zod.def : out, path);
    }
    default:
      return [path];
  }
}

const KEYS = leafKeys((configSchema as unknown as { _zod: { def: SchemaDef } })._zod.def);

Deno.test("the schema walk finds nested keys (it would otherwise check nothing)", () => {
  for (
    const key of [
      "service.http.port",
      "service.store.sparql.graphTemplate",
      "service.hash.maxWorkFactor",
      "service.security.tokens[].role",
      "workspaces[].collections[].initialize[].construct",
    ]
  ) assert.ok(KEYS.includes(key), `${key} not found by the walk: ${KEYS.join(", ")}`);
});

Deno.test("docs/configuration.md names every configuration key", () => {
  const missing = KEYS.filter((key) => !DOC.includes(`\`${key}\``));
  assert.deepEqual(missing, [], "add these keys to docs/configuration.md");
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
