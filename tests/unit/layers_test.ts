/**
 * The layer rule of docs/architecture.md, checked against the code: every `src/**\/*.ts`
 * file belongs to one layer of the page's table, no file imports from a layer above its own,
 * and no files import each other in a cycle.
 *
 * A file belongs to the one layer one of whose paths holds it; a file that two layers' paths
 * hold is an error (no "longest path wins": a contract and its engines are folders apart).
 *
 * The layer list is read from the page (between its `layers:start` and `layers:end`
 * markers), so the picture and the code cannot drift apart. Imports are read as text: static
 * `import`/`export … from`, `import("…")`, and `new URL("…", import.meta.url)` (workers).
 */
import { strict as assert } from "node:assert";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGE = "docs/architecture.md";

/** One layer: its name and the paths (folders end in `/`) that belong to it. */
interface Layer {
  name: string;
  paths: string[];
}

/** The table rows between the page's markers, top layer first. */
export function layersOf(page: string): Layer[] {
  const start = page.indexOf("<!-- layers:start -->");
  const end = page.indexOf("<!-- layers:end -->");
  assert.ok(start >= 0 && end > start, `${PAGE} has no layers:start … layers:end table`);
  const layers: Layer[] = [];
  for (const line of page.slice(start, end).split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 4 || /^-+$/.test(cells[1]) || cells[1] === "Layer") continue;
    const paths = [...cells[2].matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    assert.ok(paths.length > 0, `layer ${cells[1]} names no path`);
    layers.push({ name: cells[1].replace(/\*/g, ""), paths });
  }
  return layers;
}

/** Whether `path` (a folder when it ends in `/`, its subfolders included) holds `file`. */
function holds(path: string, file: string): boolean {
  return path.endsWith("/") ? file.startsWith(path) : file === path;
}

/** The indexes (0 = top) of every layer one of whose paths holds `file`. */
export function layersHolding(file: string, layers: Layer[]): number[] {
  return layers.flatMap((layer, index) =>
    layer.paths.some((path) => holds(path, file)) ? [index] : []
  );
}

/** The layer index of a file (0 = top), when exactly one layer holds it. */
export function layerOf(file: string, layers: Layer[]): number | undefined {
  const holding = layersHolding(file, layers);
  return holding.length === 1 ? holding[0] : undefined;
}

const IMPORT_PATTERNS = [
  /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']/g,
  /import\s*["']([^"']+)["']/g,
  /import\(\s*["']([^"']+)["']\s*\)/g,
  /new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
];

/** The `src/` TypeScript files a source file imports (relative specifiers only). */
export function importsOf(file: string, text: string): string[] {
  const targets = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1];
      if (!specifier.startsWith(".") || !specifier.endsWith(".ts")) continue;
      targets.add(normalize(join(dirname(file), specifier)));
    }
  }
  return [...targets];
}

/** Every cycle's files, one list per strongly connected component with more than one file. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

async function sourceFiles(dir = join(ROOT, "src")): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(relative(ROOT, path));
  }
  return files.sort();
}

async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles()) {
    graph.set(file, importsOf(file, await Deno.readTextFile(join(ROOT, file))));
  }
  return graph;
}

Deno.test("every src file belongs to a layer of docs/architecture.md", async () => {
  const layers = layersOf(await Deno.readTextFile(join(ROOT, PAGE)));
  assert.ok(layers.length >= 5, "the page lists the layers");
  const unplaced = (await sourceFiles()).filter((file) => layersHolding(file, layers).length === 0);
  assert.deepEqual(unplaced, [], `files in no layer of ${PAGE}`);
});

Deno.test("no src file belongs to two layers of docs/architecture.md", async () => {
  const layers = layersOf(await Deno.readTextFile(join(ROOT, PAGE)));
  const twice = (await sourceFiles())
    .map((file) => ({ file, holding: layersHolding(file, layers) }))
    .filter(({ holding }) => holding.length > 1)
    .map(({ file, holding }) =>
      `${file}: ${holding.map((index) => layers[index].name).join(", ")}`
    );
  assert.deepEqual(twice, [], `files that two layers of ${PAGE} hold`);
});

/** The imports from files under one of `from` to files under one of `to`. */
async function importsBetween(from: string[], to: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [file, targets] of await importGraph()) {
    if (!from.some((path) => holds(path, file))) continue;
    for (const target of targets) {
      if (to.some((path) => holds(path, target))) found.push(`${file} imports ${target}`);
    }
  }
  return found;
}

/** The store's engines. */
const STORE_ENGINES = ["src/store_embedded/", "src/store_sparql/"];
/** The store: its contract and every engine of it. */
const STORE = ["src/store/", ...STORE_ENGINES];
/** Search's engines. */
const SEARCH_ENGINES = ["src/search_embedded/", "src/search_opensearch/"];
/** Search: its contract and every engine of it. */
const SEARCH = ["src/search/", ...SEARCH_ENGINES];

Deno.test("configuration does not import search", async () => {
  assert.deepEqual(await importsBetween(["src/config/"], SEARCH), []);
});

Deno.test("search does not import the store", async () => {
  assert.deepEqual(await importsBetween(SEARCH, STORE), []);
});

Deno.test("the SPARQL protocol does not import the store", async () => {
  assert.deepEqual(await importsBetween(["src/sparql_protocol/"], STORE), []);
});

// Record stores (catalog and job records) stand on the contracts and the SPARQL protocol,
// never on an engine's files, even where the layer order would allow it.
Deno.test("configuration and the job records do not import an engine", async () => {
  const from = ["src/catalog/", "src/config/", "src/jobs/", "src/job_stores/"];
  assert.deepEqual(await importsBetween(from, [...STORE_ENGINES, ...SEARCH_ENGINES]), []);
});

Deno.test("no import runs from a lower layer up to a higher one", async () => {
  const layers = layersOf(await Deno.readTextFile(join(ROOT, PAGE)));
  const upward: string[] = [];
  for (const [file, targets] of await importGraph()) {
    const from = layerOf(file, layers)!;
    for (const target of targets) {
      const to = layerOf(target, layers);
      if (to === undefined) continue; // a missing file fails type-checking, not this test
      if (to < from) {
        upward.push(`${file} (${layers[from].name}) imports ${target} (${layers[to].name})`);
      }
    }
  }
  assert.deepEqual(upward, [], "imports against the layer order");
});

Deno.test("no import cycle between files", async () => {
  assert.deepEqual(cyclesOf(await importGraph()), [], "files that import each other");
});

Deno.test("the checker sees what it must: upward imports, cycles, workers, dynamic imports", () => {
  const layers = layersOf(
    "<!-- layers:start -->\n| Layer | Paths | What |\n|---|---|---|\n" +
      "| top | `src/a.ts`, `src/routes/` | x |\n| low | `src/store/` | y |\n<!-- layers:end -->",
  );
  assert.deepEqual(layers.map((layer) => layer.name), ["top", "low"]);
  assert.equal(layerOf("src/routes/x.ts", layers), 0);
  assert.equal(layerOf("src/store/sqlite/y.ts", layers), 1);
  assert.equal(layerOf("src/other.ts", layers), undefined);
  const overlapping = layersOf(
    "<!-- layers:start -->\n| Layer | Paths | What |\n|---|---|---|\n" +
      "| engines | `src/store/sqlite/` | x |\n| contracts | `src/store/` | y |\n<!-- layers:end -->",
  );
  assert.deepEqual(layersHolding("src/store/sqlite/y.ts", overlapping), [0, 1]);
  assert.equal(layerOf("src/store/sqlite/y.ts", overlapping), undefined, "no longest path wins");
  assert.equal(layerOf("src/store/z.ts", overlapping), 1);
  const text = 'import type { A } from "../a.ts";\nexport { b } from "./b.ts";\n' +
    'const c = await import("./c.ts");\nnew Worker(new URL("./w.ts", import.meta.url));\n' +
    'import x from "npm:x";\nimport "./side.ts";';
  assert.deepEqual(importsOf("src/store/s.ts", text).sort(), [
    "src/a.ts",
    "src/store/b.ts",
    "src/store/c.ts",
    "src/store/side.ts",
    "src/store/w.ts",
  ]);
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(cyclesOf(graph), [["a", "b", "c"]]);
});
