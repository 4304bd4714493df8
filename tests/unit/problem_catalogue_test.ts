/**
 * The problem catalogue (`src/errors/problems.ts`) is the one list of problems: every slug a
 * throw site names is in it, each slug is listed once (so it has one title), code branches on
 * typed problems rather than slug strings, and docs/api.md's problem table says the same
 * slugs, statuses and titles.
 */
import { strict as assert } from "node:assert";
import { PROBLEMS, type ProblemSlug } from "../../src/errors/problems.ts";
import { STATUS_OF_KIND } from "../../src/http/problem.ts";

const SRC = new URL("../../src/", import.meta.url);
const CATALOGUE = new URL("../../src/errors/problems.ts", import.meta.url);
const API_DOC = new URL("../../docs/api.md", import.meta.url);

/** Every TypeScript file under src/, with its text. */
async function sources(): Promise<{ path: string; text: string }[]> {
  const files: { path: string; text: string }[] = [];
  async function walk(dir: URL, prefix: string) {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir), `${path}/`);
      else if (entry.name.endsWith(".ts")) {
        files.push({ path, text: await Deno.readTextFile(new URL(entry.name, dir)) });
      }
    }
  }
  await walk(SRC, "src/");
  return files;
}

/** The text of a call's arguments from `open` (just past its parenthesis) to the closing one. */
function callArguments(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") {
      if (depth === 0) return text.slice(open, i);
      depth--;
    }
  }
  return text.slice(open);
}

/** The first argument of a call: up to its first comma outside brackets. */
function firstArgument(args: string): string {
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const char = args[i];
    if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") depth--;
    else if (char === "," && depth === 0) return args.slice(0, i);
  }
  return args;
}

const SLUG_LITERAL = /"([a-z][a-z0-9-]*)"/g;

/**
 * Where problems are named: the slug argument of every DomainError constructed (directly, or
 * by a subclass's `super`), and the slugs code branches on or hands to a problem factory.
 */
const NAMING_CALLS: { call: RegExp; slugsIn: (args: string) => string }[] = [
  { call: /new DomainError\(/g, slugsIn: firstArgument },
  { call: /\bsuper\(/g, slugsIn: firstArgument },
  { call: /\bisProblem\(/g, slugsIn: (args) => args.slice(firstArgument(args).length) },
  { call: /(?<!function )\bengineDown\(/g, slugsIn: firstArgument },
];

/** Slug arguments that are not literals: each forwards a slug already typed (ProblemSlug). */
const FORWARDED = new Set(["error.slug", "slug"]);

Deno.test("every slug a throw site names is in the catalogue", async () => {
  const named = new Map<string, string>();
  const untyped: string[] = [];
  for (const { path, text } of await sources()) {
    const isErrorClass = /extends (DomainError|\w+Error|\w+Refusal|StorageUnwritable)\b/
      .test(text);
    for (const { call, slugsIn } of NAMING_CALLS) {
      if (call.source === "\\bsuper\\(" && !isErrorClass) continue;
      for (const match of text.matchAll(call)) {
        const argument = slugsIn(callArguments(text, match.index + match[0].length)).trim();
        // `condition ? "a-slug" : "b-slug"`: the slugs are the branches, not the condition.
        const choices = argument.includes("?") ? argument.slice(argument.indexOf("?")) : argument;
        const slugs = [...choices.matchAll(SLUG_LITERAL)].map((m) => m[1]);
        if (slugs.length === 0 && call.source !== "\\bsuper\\(" && !FORWARDED.has(argument)) {
          untyped.push(`${path}: ${argument}`);
        }
        for (const slug of slugs) named.set(slug, path);
      }
    }
  }
  assert.ok(named.size > 50, `found only ${named.size} slugs: is the scan still right?`);
  const missing = [...named].filter(([slug]) => !Object.hasOwn(PROBLEMS, slug));
  assert.deepEqual(missing, [], "slugs thrown but not in src/errors/problems.ts");
  assert.deepEqual(untyped, [], "problems named by something other than a catalogue slug");
});

Deno.test("the catalogue lists each slug once, so each has one title", async () => {
  const text = await Deno.readTextFile(CATALOGUE);
  const keys = [...text.matchAll(/^ {4}"([a-z][a-z0-9-]*)":/gm)].map((m) => m[1]);
  assert.equal(keys.length, Object.keys(PROBLEMS).length);
  const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
  assert.deepEqual(twice, [], "slugs listed twice in src/errors/problems.ts");
  for (const [slug, { title }] of Object.entries(PROBLEMS)) {
    assert.ok(title.trim() !== "", `${slug} has no title`);
  }
});

Deno.test("code branches on typed problems, never on slug strings", async () => {
  const comparisons: string[] = [];
  for (const { path, text } of await sources()) {
    for (const match of text.matchAll(/\.slug\s*[!=]==?|[!=]==?\s*\w+\.slug\b/g)) {
      comparisons.push(`${path}: ${text.slice(match.index, match.index + 40)}`);
    }
  }
  assert.deepEqual(comparisons, [], "use isProblem(error, slug) instead");
});

/** docs/api.md's problem table: slug → status and title. */
async function documentedProblems(): Promise<Map<string, { status: number; title: string }>> {
  const doc = await Deno.readTextFile(API_DOC);
  const section = doc.split("\n## Problem types\n")[1]?.split("\n## ")[0];
  assert.ok(section, "docs/api.md has no '## Problem types' section");
  const rows = new Map<string, { status: number; title: string }>();
  for (const match of section.matchAll(/^\| `(\d{3})` +\| `([a-z0-9-]+)` +\| (.+?) +\|$/gm)) {
    assert.ok(!rows.has(match[2]), `${match[2]} is documented twice`);
    rows.set(match[2], { status: Number(match[1]), title: match[3] });
  }
  return rows;
}

/** The table docs/api.md should hold, to paste when this test fails. */
function expectedTable(): string {
  const rows = Object.entries(PROBLEMS).map(([slug, { kind, title }]) =>
    `| \`${STATUS_OF_KIND[kind]}\` | \`${slug}\` | ${title} |`
  );
  return ["| Status | Slug | Title |", "| --- | --- | --- |", ...rows].join("\n");
}

Deno.test("docs/api.md documents every problem with the catalogue's status and title", async () => {
  const documented = await documentedProblems();
  const catalogued = new Map(
    (Object.entries(PROBLEMS) as [ProblemSlug, (typeof PROBLEMS)[ProblemSlug]][]).map((
      [slug, { kind, title }],
    ) => [slug, { status: STATUS_OF_KIND[kind], title }]),
  );
  assert.deepEqual(
    Object.fromEntries(documented),
    Object.fromEntries(catalogued),
    `docs/api.md's problem table differs from src/errors/problems.ts; it should be:\n\n${expectedTable()}\n`,
  );
});
