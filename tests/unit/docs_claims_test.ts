/**
 * Claims the docs make about the product that can be checked against it: the shipped file
 * shown in docs/configuration.md is customer.yml; the paths it says are open without a token
 * are exactly the routes whose contract is open; docs/backends.md names every parameter of
 * `GET /api/search` for the embedded engine, which answers them all (the engine suite runs
 * one suite on both engines).
 */
import { strict as assert } from "node:assert";
import { parse } from "yaml";
import { ALL_CONTRACTS } from "../../src/routes/contracts/all.ts";
import { searchItems } from "../../src/routes/contracts/search.ts";

const read = (path: string) => Deno.readTextFileSync(new URL(`../../${path}`, import.meta.url));
const CONFIGURATION = read("docs/configuration.md");
const BACKENDS = read("docs/backends.md");
const SHIPPED = read("customer.yml");

/** The text between `<!-- name:start -->` and `<!-- name:end -->`. */
function marked(text: string, name: string): string {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  assert.ok(start >= 0 && end > start, `markers ${name} missing`);
  return text.slice(start, end);
}

/** A line as the formatter leaves it: one space before a comment, none at the end. */
function normalised(line: string): string {
  return line.replace(/\s+#/, " #").trimEnd();
}

Deno.test("docs/configuration.md shows the shipped customer.yml word for word", () => {
  const section = CONFIGURATION.slice(CONFIGURATION.indexOf("## The shipped file"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "no yaml block under 'The shipped file'");
  assert.deepEqual(block.split("\n").map(normalised), SHIPPED.split("\n").map(normalised));
  assert.deepEqual(parse(block), parse(SHIPPED));
});

Deno.test("docs/configuration.md names exactly the paths open without a token", () => {
  const named = new Set(
    [...marked(CONFIGURATION, "open-paths").matchAll(/`(\/[^`]*)`/g)].map((m) => m[1]),
  );
  const open = new Set(
    ALL_CONTRACTS.filter((contract) => contract.access === "open").map((c) => c.path),
  );
  assert.deepEqual([...named].sort(), [...open].sort());
});

Deno.test("docs/backends.md names every GET /api/search parameter for embedded search", () => {
  const section = BACKENDS.slice(
    BACKENDS.indexOf("## Embedded search"),
    BACKENDS.indexOf("## OpenSearch"),
  );
  const named = new Set([...section.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]));
  const parameters = Object.keys(searchItems.query.shape).filter((name) => name !== "collection");
  assert.deepEqual(parameters.filter((name) => !named.has(name)), []);
  assert.doesNotMatch(section, /no (facets|highlights)/i);
});
