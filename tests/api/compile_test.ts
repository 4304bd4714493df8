/**
 * `deno task compile` (issue "Ship it"): where a runtime is at hand (DENORT_BIN), the
 * executable is built and run (health, create, read, a workbench page and its files);
 * everywhere, the task fails with a clear message when it cannot get the runtime, refuses
 * the Deno CLI as a runtime, and the workbench's files are modules of the graph it embeds.
 */
import { strict as assert } from "node:assert";
import { freePort } from "../support/ports.ts";
import { DEMO_COLLECTION, itemQuery } from "../support/service.ts";
import { SERVICE_VERSION } from "../../src/version.ts";
import { ASSET_NAMES } from "../../src/ui/assets.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const COMPILE = `${ROOT}scripts/compile.ts`;
const denort = Deno.env.get("DENORT_BIN");
if (!denort) {
  console.log(
    "compiled-executable test skipped: set DENORT_BIN to a denort binary for this Deno " +
      "version (deno compile cannot download its runtime on this machine)",
  );
}

Deno.test("the compile task fails clearly when it cannot fetch the runtime", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "rcs-compile-denodir-" });
  try {
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", COMPILE],
      cwd: ROOT,
      // An empty cache and a proxy that refuses: as on a machine without internet.
      env: {
        DENO_DIR: denoDir,
        HTTPS_PROXY: "http://127.0.0.1:9",
        HTTP_PROXY: "http://127.0.0.1:9",
        DENORT_BIN: "",
        COMPILE_OUTPUT: `${denoDir}/never-built`,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(result.code, 1);
    const stderr = new TextDecoder().decode(result.stderr);
    assert.ok(
      /could not fetch its runtime \(denort\)[^]*DENORT_BIN=/.test(stderr),
      stderr.slice(-2000),
    );
    await assert.rejects(Deno.stat(`${denoDir}/never-built`));
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("the compile task refuses the Deno CLI as DENORT_BIN, saying why", async () => {
  // The binary running this test is the Deno CLI: with it as the runtime, deno compile
  // would write a copy of the CLI and report success.
  const dir = await Deno.makeTempDir({ prefix: "rcs-compile-cli-" });
  try {
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", COMPILE],
      cwd: ROOT,
      env: { DENORT_BIN: Deno.execPath(), COMPILE_OUTPUT: `${dir}/never-built` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(result.stderr);
    assert.equal(result.code, 1, stderr);
    assert.match(stderr, /is the Deno CLI \(it answers --version with "deno \d+\.\d+\.\d+/);
    assert.match(stderr, /not the denort runtime/);
    assert.doesNotMatch(new TextDecoder().decode(result.stdout), /Built /);
    await assert.rejects(Deno.stat(`${dir}/never-built`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the service answers --version with its name and SERVICE_VERSION", async () => {
  // What scripts/compile.ts asks a fresh build; no configuration is read for it.
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${ROOT}src/main.ts`, "--version"],
    cwd: ROOT,
    env: { CUSTOMER_YML: `${ROOT}no-such-customer.yml` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  assert.equal(new TextDecoder().decode(result.stdout), `rdf-content-service ${SERVICE_VERSION}\n`);
});

Deno.test("the workbench's files are in the module graph deno compile embeds", async () => {
  // deno compile embeds src/main.ts's module graph; the files are imported with attributes
  // (src/ui/assets.ts), so they are in it as the npm packages and src/ui/static/ hold them.
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", `${ROOT}src/main.ts`],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  const graph = JSON.parse(new TextDecoder().decode(result.stdout));
  const modules: string[] = graph.modules.map((module: { specifier: string }) => module.specifier);
  // Every file src/ui/assets.ts imports with an attribute: ours by path, npm ones by
  // package and path (the graph names them npm:/<package>@<version>/<path>).
  const source = Deno.readTextFileSync(`${ROOT}src/ui/assets.ts`);
  const imported = [...source.matchAll(/from\s+"([^"]+)"\s+with\s*\{\s*type:\s*"bytes",?\s*\}/g)]
    .map((m) => m[1]);
  assert.equal(imported.length, ASSET_NAMES.length, "one import per served file");
  for (const specifier of imported) {
    const found = specifier.startsWith("./")
      ? modules.includes(new URL(specifier, `file://${ROOT}src/ui/`).href)
      : modules.some((module) => {
        const [, name, path] = /^npm:\/((?:@[^/]+\/)?[^/@]+)@[^/]+\/(.+)$/.exec(module) ?? [];
        return `${name}/${path}` === specifier;
      });
    assert.ok(found, `${specifier} is not a module of src/main.ts's graph`);
  }
  // The compile command enables the imports that carry them.
  assert.match(Deno.readTextFileSync(COMPILE), /"--unstable-raw-imports"/);
});

Deno.test({
  name: "the compiled executable serves /health, creates and reads an item",
  ignore: !denort,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-compiled-" });
    const binary = `${dir}/rdf-content-service`;
    try {
      const built = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", COMPILE],
        cwd: ROOT,
        env: { COMPILE_OUTPUT: binary },
        stdout: "piped",
        stderr: "piped",
      }).output();
      // The compile task's own reason (e.g. a DENORT_BIN that is not denort), not a symptom.
      assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
      const port = freePort();
      const child = new Deno.Command(binary, {
        env: { SERVICE_HTTP_PORT: String(port), SERVICE_DATA_DIR: `${dir}/data` },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      let exited: Deno.CommandStatus | undefined;
      const status = child.status.then((value) => exited = value);
      const url = `http://127.0.0.1:${port}`;
      try {
        let healthy = false;
        for (let attempt = 0; attempt < 100 && !healthy && !exited; attempt++) {
          healthy = await fetch(`${url}/health`).then(async (r) => {
            await r.body?.cancel();
            return r.ok;
          }, () => false);
          if (!healthy) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (exited) {
          const output = await new Response(child.stderr).text();
          assert.fail(`the executable exited with code ${exited.code}: ${output.slice(-2000)}`);
        }
        assert.ok(healthy, "the executable did not answer /health");
        const uri = "https://data.example.org/id/document/compiled";
        const created = await fetch(`${url}/api/item?${itemQuery(uri, DEMO_COLLECTION)}`, {
          method: "PUT",
          headers: { "Content-Type": "text/turtle" },
          body: `<${uri}> <http://purl.org/dc/terms/title> "Built once" .`,
        });
        assert.equal(created.status, 201, await created.text());
        const read = await fetch(`${url}/api/item?${itemQuery(uri)}`, {
          headers: { Accept: "application/n-triples" },
        });
        assert.equal(read.status, 200);
        assert.match(await read.text(), /"Built once"/);
        // The workbench and its files come from inside the executable.
        const home = await fetch(`${url}/`);
        assert.equal(home.status, 200);
        assert.match(await home.text(), /\/ui\/assets\/page-home\.js/);
        for (const name of ["yasgui.min.js", "swagger-ui-bundle.js", "workbench.js"]) {
          const asset = await fetch(`${url}/ui/assets/${name}`);
          assert.equal(asset.status, 200, name);
          assert.ok((await asset.arrayBuffer()).byteLength > 1000, name);
        }
        // The executable's own permissions take an online backup (not only --allow-all).
        const backup = await new Deno.Command(binary, {
          args: ["--backup", `${dir}/backup.db`],
          env: { SERVICE_DATA_DIR: `${dir}/data`, LOG_LEVEL: "warn" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(backup.code, 0, new TextDecoder().decode(backup.stderr));
        const report = JSON.parse(new TextDecoder().decode(backup.stdout)) as { items: number };
        assert.equal(report.items, 1);
      } finally {
        if (!exited) child.kill("SIGTERM");
        await status;
        await child.stderr.cancel().catch(() => {});
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
