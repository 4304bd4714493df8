/**
 * docs/api.md and `/openapi.json` describe one HTTP surface: every operation of the OpenAPI
 * document has a section in docs/api.md naming its parameters and statuses, the problem types
 * its responses name are in the page's table, and the page names no route the service lacks.
 * The document is built here from the same contracts the running service serves it from.
 * The page's lists of RDF formats (downloads, the types an item is read in, upload
 * extensions, what an import reads and an export writes) are the format table's
 * (src/rdf/format_table.ts).
 */
import { strict as assert } from "node:assert";
import { buildOpenApiDocument } from "../../src/openapi/document.ts";
import { ALL_CONTRACTS } from "../../src/routes/contracts/all.ts";
import { SERVICE_VERSION } from "../../src/version.ts";
import { importFormats, QUAD_FORMATS, RDF_FORMATS } from "../../src/rdf/format_table.ts";
import {
  DOWNLOAD_FORMATS,
  ITEM_READ_FORMATS,
  registeredTypesOf,
} from "../../src/routes/media_types.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const PAGE = Deno.readTextFileSync(new URL("../../docs/api.md", import.meta.url));
const DOCUMENT: Json = buildOpenApiDocument(ALL_CONTRACTS, { version: SERVICE_VERSION });
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
/** `GET /api/item` in backticks, as the page names a route. */
const ROUTE_MENTION = /`(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE) (\/[^`\s]*)`/g;
/** Statuses the page's Conventions state once for every route (access). */
const STATED_ONCE = ["401", "403"];

/** Every operation of the document, by `METHOD path`. */
function documentOperations(): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const [path, item] of Object.entries<Json>(DOCUMENT.paths)) {
    for (const method of METHODS) {
      if (item[method]) found.set(`${method.toUpperCase()} ${path}`, item[method]);
    }
  }
  return found;
}

/** The page's level-3 sections: the routes each heading names, and the text below it. */
function routeSections(): { routes: string[]; text: string }[] {
  const sections: { routes: string[]; text: string }[] = [];
  let current: { routes: string[]; text: string } | undefined;
  for (const line of PAGE.split("\n")) {
    if (/^#{1,3} /.test(line)) {
      current = undefined;
      if (line.startsWith("### ")) {
        const routes = [...line.matchAll(ROUTE_MENTION)].map((match) => `${match[1]} ${match[2]}`);
        if (routes.length > 0) sections.push(current = { routes, text: "" });
      }
      continue;
    }
    if (current) current.text += line + "\n";
  }
  return sections;
}

/** The text of the page's section with this level-2 heading. */
function chapter(title: string): string {
  const start = PAGE.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/api.md has no "## ${title}"`);
  const end = PAGE.indexOf("\n## ", start + 1);
  return PAGE.slice(start, end < 0 ? undefined : end);
}

Deno.test("every operation of /openapi.json has one section in docs/api.md", () => {
  const sections = routeSections();
  for (const key of documentOperations().keys()) {
    const holding = sections.filter((section) => section.routes.includes(key));
    assert.equal(holding.length, 1, `${key}: sections in docs/api.md`);
  }
});

Deno.test("docs/api.md names every parameter and status of each operation", () => {
  const sections = routeSections();
  for (const [key, operation] of documentOperations()) {
    const { text } = sections.find((section) => section.routes.includes(key))!;
    for (const parameter of operation.parameters ?? []) {
      assert.ok(text.includes(`\`${parameter.name}\``), `${key}: parameter ${parameter.name}`);
    }
    for (const status of Object.keys(operation.responses)) {
      if (status === "default" || STATED_ONCE.includes(status)) continue;
      assert.ok(text.includes(`\`${status}\``), `${key}: status ${status}`);
    }
  }
  const conventions = chapter("Conventions");
  for (const status of STATED_ONCE) assert.ok(conventions.includes(`\`${status}\``), status);
});

Deno.test("docs/api.md's problem types hold every slug the document names", () => {
  const table = chapter("Problem types");
  for (const [key, operation] of documentOperations()) {
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      for (const match of String(response.description ?? "").matchAll(/`([a-z]+(?:-[a-z]+)+)`/g)) {
        assert.ok(table.includes(`\`${match[1]}\``), `${key} ${status}: problem type ${match[1]}`);
      }
    }
  }
});

Deno.test("docs/api.md names no route the OpenAPI document lacks", () => {
  const operations = documentOperations();
  const unknown = [...PAGE.matchAll(ROUTE_MENTION)]
    .map((match) => `${match[1]} ${match[2]}`)
    .filter((route) => !operations.has(route));
  assert.deepEqual(unknown, [], "routes in docs/api.md that /openapi.json does not describe");
});

/** The level-3 section of the page whose heading holds `heading`. */
function section(heading: string): { title: string; text: string } {
  const lines = PAGE.split("\n");
  const start = lines.findIndex((line) => line.startsWith("### ") && line.includes(heading));
  assert.ok(start >= 0, `docs/api.md has no "### …${heading}…"`);
  const end = lines.findIndex((line, at) => at > start && /^#{1,3} /.test(line));
  return {
    title: lines[start],
    text: lines.slice(start + 1, end < 0 ? undefined : end).join("\n"),
  };
}

Deno.test("docs/api.md's item downloads are the format table's, in its order", () => {
  const { title, text } = section("`GET /api/item.");
  const expected = Object.entries(DOWNLOAD_FORMATS);
  assert.ok(expected.length >= 5, "the table offers downloads");
  assert.deepEqual(
    [...title.matchAll(/`GET \/api\/item\.([a-z0-9]+)`/g)].map((match) => match[1]),
    expected.map(([extension]) => extension),
    "the heading's routes",
  );
  const rows = [...text.matchAll(/^\| `([a-z0-9]+)` +\| `([^`]+)` +\|$/gm)]
    .map((match) => [match[1], match[2]]);
  assert.deepEqual(
    rows,
    expected.map(([extension, format]) => [extension, RDF_FORMATS[format].contentType]),
    "the Extension | Content-Type table",
  );
});

Deno.test("docs/api.md names every type GET /api/item answers in, the default first", () => {
  const { text } = section("`GET /api/item`");
  const named = [...text.matchAll(/`([a-z]+\/[a-z0-9+.-]+)`/g)].map((match) => match[1]);
  assert.deepEqual(
    named,
    registeredTypesOf(ITEM_READ_FORMATS).slice(1),
    "the types after the default, in the table's order",
  );
  assert.ok(text.includes(`${RDF_FORMATS[ITEM_READ_FORMATS[0]].label} by default`));
});

Deno.test("docs/api.md's upload extensions are every extension of the format table", () => {
  const { text } = section("`POST /api/admin/tools/generate-shacl`");
  const listed = /file extension \(([^)]*)\)/.exec(text.replaceAll("\n", " "))?.[1] ?? "";
  const extensions = [...listed.matchAll(/\.([a-z0-9]+)/g)].map((match) => `.${match[1]}`);
  const expected = Object.values(RDF_FORMATS).flatMap((info) => info.extensions);
  assert.deepEqual(
    extensions.filter((extension) => extension !== ".json").toSorted(),
    expected.toSorted(),
  );
});

Deno.test("docs/api.md's import and export formats are the format table's, in its order", () => {
  const typesIn = (text: string) =>
    [...text.matchAll(/`([a-z]+\/[a-z0-9+.-]+)`/g)].map((match) => match[1]);
  const { text: importText } = section("`POST /api/admin/import`");
  const intro = importText.trim().split("\n\n", 1)[0];
  assert.deepEqual(
    typesIn(intro),
    registeredTypesOf(importFormats("subject")),
    "the import's body types: by graph, then by subject also",
  );
  const jobFormats = /"format": ((?:"[a-z]+"(?: \| )?)+),/.exec(PAGE)?.[1] ?? "";
  assert.deepEqual(
    [...jobFormats.matchAll(/"([a-z]+)"/g)].map((match) => match[1]),
    importFormats("subject"),
    "the import job's format",
  );
  const { text: exportText } = section("`GET /api/admin/export`");
  const accept = /`Accept: ([^`]+)`[^.]*\./.exec(exportText)?.[0] ?? "";
  assert.deepEqual(
    [/`Accept: ([^`]+)`/.exec(accept)?.[1], ...typesIn(accept)],
    registeredTypesOf(QUAD_FORMATS),
    "the export's types, the default first",
  );
});
