/**
 * Worker modules are loaded by URL at run time, so `deno compile` embeds them only when told
 * to (`--include`): a worker missing from scripts/compile.ts or the Dockerfile is a binary or
 * an image that fails at its first job or query, though every test of `deno task test` passes.
 */
import { strict as assert } from "node:assert";
import { dirname, join, relative } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Every module of src/ that some file of src/ loads as `new URL("./x.ts", import.meta.url)`. */
async function workerModules(): Promise<string[]> {
  const found = new Set<string>();
  for await (const path of sourceFiles(join(ROOT, "src"))) {
    // Code only: a doc comment may show the pattern.
    const text = (await Deno.readTextFile(path)).split("\n")
      .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n");
    for (const match of text.matchAll(/new URL\("(\.\/[\w/]+\.ts)", import\.meta\.url\)/g)) {
      found.add(relative(ROOT, join(dirname(path), match[1])));
    }
  }
  return [...found].sort();
}

async function* sourceFiles(dir: string): AsyncIterable<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("every worker module is embedded by scripts/compile.ts and the Dockerfile", async () => {
  const workers = await workerModules();
  assert.ok(workers.length >= 3, `worker modules found: ${workers.join(", ")}`);
  const compile = await Deno.readTextFile(join(ROOT, "scripts/compile.ts"));
  const dockerfile = await Deno.readTextFile(join(ROOT, "Dockerfile"));
  for (const worker of workers) {
    assert.ok(await Deno.stat(join(ROOT, worker)), worker);
    assert.ok(compile.includes(`"--include",\n  "${worker}",`), `scripts/compile.ts: ${worker}`);
    assert.ok(dockerfile.includes(`--include ${worker}`), `Dockerfile: ${worker}`);
  }
});
