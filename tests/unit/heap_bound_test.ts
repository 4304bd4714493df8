/**
 * The service runs with one heap bound wherever it starts: `deno task start` (and `dev`), the
 * compiled executable (scripts/compile.ts), the container image (Dockerfile), and the service
 * processes of tests and benches (tests/support/process.ts reads the start task). Without
 * it V8 lets a busy service's heap grow to four times what it holds (docs/operations.md).
 */
import { strict as assert } from "node:assert";
import { shippedV8Flags } from "../support/process.ts";

const read = (path: string) => Deno.readTextFileSync(new URL(`../../${path}`, import.meta.url));

Deno.test("the start task, the compile script and the Dockerfile give the same heap bound", () => {
  const flags = shippedV8Flags();
  const bound = flags.find((flag) => flag.startsWith("--max-old-space-size="));
  assert.ok(bound, `deno task start gives no heap bound: ${flags.join(",")}`);
  const given = `--v8-flags=${flags.join(",")}`;
  const tasks = JSON.parse(read("deno.json")).tasks;
  // `deno task dev` runs scripts/dev.ts, which starts the service under --watch with them.
  const dev = tasks.dev.includes("scripts/dev.ts") ? read("scripts/dev.ts") : tasks.dev;
  assert.ok(
    dev.includes(given.replace("--v8-flags=", "")),
    "deno task dev runs with the start task's flags",
  );
  assert.ok(read("scripts/compile.ts").includes(`"${given}"`), "scripts/compile.ts");
  const compile = read("Dockerfile").match(/^RUN deno compile (?:.*\\\n)*.*$/m)?.[0] ?? "";
  assert.ok(compile.includes(given), `the Dockerfile's deno compile: ${compile}`);
});
