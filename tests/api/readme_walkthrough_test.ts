/**
 * The README's curl walkthrough, run as written against a freshly started service, so the
 * front page cannot drift from what the service does. The walkthrough is the ```sh blocks
 * between `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";

const README = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));

/** Every route of docs/api.md (fixed), as `METHOD path`. */
const API_ROUTES = [
  "GET /api/admin/collections",
  "POST /api/admin/collections",
  "PUT /api/admin/collections",
  "DELETE /api/admin/collections",
  "POST /api/admin/workspaces",
  "PUT /api/item",
  "GET /api/item",
  "POST /api/item",
  "DELETE /api/item",
  "GET /api/item.ttl",
  "GET /api/item.rdf",
  "GET /api/item.nt",
  "GET /api/item.n3",
  "GET /api/item.jsonld",
  "POST /api/item/initialize",
  "GET /api/item/hash",
  "POST /api/item/hash",
  "GET /api/admin/index/is-running",
  "POST /api/admin/index",
  "POST /api/admin/index/collection",
  "POST /api/admin/index/items",
  "GET /api/admin/index/jobs",
  "GET /api/admin/index/jobs/{id}",
  "GET /api/admin/tools/sparqlui/sparql-endpoints",
  "POST /api/admin/tools/sparqlui/query",
  "GET /admin/sparqlui",
  "POST /api/admin/tools/dump-settings",
  "POST /api/admin/tools/generate-shacl",
  "GET /api/search",
  "POST /api/search",
  "GET /health",
  "GET /ready",
  "GET /openapi.json",
];

/** The walkthrough's shell code: its ```sh blocks, in order. */
function walkthroughScript(markdown: string): string {
  const start = markdown.indexOf("<!-- walkthrough:start -->");
  const end = markdown.indexOf("<!-- walkthrough:end -->");
  assert.ok(start >= 0 && end > start, "README.md lacks the walkthrough markers");
  const blocks = [...markdown.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)];
  return blocks.map((block) => block[1]).join("\n");
}

/**
 * `METHOD path` of every curl call in a script: the method from `-X`, else POST for a body
 * (`-d`, `--data*`, `-F`) without `-G`, else GET; the path is what follows `$BASE`.
 */
function curlRoutes(script: string): Set<string> {
  const routes = new Set<string>();
  const commands = script.replace(/\\\n/g, " ").split("\n");
  for (const command of commands) {
    for (const call of command.split(/(?=\bcurl\s)/).filter((part) => /^curl\s/.test(part))) {
      const target = call.match(/\$BASE(\$JOB|\/[A-Za-z0-9_./-]*)/);
      if (!target) continue;
      // $JOB holds the Location of a started job: /api/admin/index/jobs/<id>.
      const path = target[1] === "$JOB" ? "/api/admin/index/jobs/{id}" : target[1];
      const explicit = call.match(/-X\s+([A-Z]+)/);
      const hasBody = /\s(-d|--data[\w-]*|-F)\s/.test(call) && !/\s-G\s/.test(call);
      routes.add(`${explicit ? explicit[1] : hasBody ? "POST" : "GET"} ${path}`);
    }
  }
  return routes;
}

const script = walkthroughScript(README);
const curlFound = new Deno.Command("bash", { args: ["-c", "command -v curl"], stdout: "null" })
  .outputSync().success;
if (!curlFound) {
  console.warn("readme walkthrough: skipped, curl is not installed (apt-get install curl)");
}

Deno.test("the README walkthrough calls every route of docs/api.md with curl", () => {
  const called = curlRoutes(script);
  const missing = API_ROUTES.filter((route) => !called.has(route));
  assert.deepEqual(missing, [], "add a curl call for these routes to the README walkthrough");
});

Deno.test({
  name: "the README walkthrough runs as written against a started service",
  ignore: !curlFound,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-readme-" });
    const workDir = await Deno.makeTempDir({ prefix: "rcs-readme-work-" });
    // The walkthrough is written for the shipped configuration on the embedded backends.
    const service = await startServiceProcess({
      SERVICE_DATA_DIR: dataDir,
      SERVICE_STORE_BACKEND: "embedded",
      SERVICE_SEARCH_BACKEND: "embedded",
    });
    try {
      const result = await new Deno.Command("bash", {
        // -x: on failure, stderr shows the command that failed.
        args: ["-c", `set -euxo pipefail\n${script}`],
        env: { BASE: service.url },
        cwd: workDir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      const stdout = decoder.decode(result.stdout);
      const stderr = decoder.decode(result.stderr);
      assert.equal(
        result.code,
        0,
        `the walkthrough failed (exit ${result.code}):\n${stderr.slice(-4000)}`,
      );
      // A few outputs the README's comments promise.
      assert.match(stdout, /"status":"ok"/);
      assert.match(stdout, /"\/problems\/not-implemented"/);
      assert.match(stdout, /sh:NodeShape/);
      assert.match(stdout, /"http:\/\/purl.org\/dc\/terms\/relation"/);
    } finally {
      await service.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      await Deno.remove(workDir, { recursive: true }).catch(() => {});
    }
  },
});
