/**
 * Every `deno task X` the docs name answers `--help` with its usage, exit 0, and starts no
 * work (the service does not listen, compile builds nothing); the tasks of this project
 * refuse an option they do not know with exit 2, and `export --format ttl` is refused
 * rather than silently writing N-Quads.
 */
import { strict as assert } from "node:assert";

const ROOT = new URL("../../", import.meta.url);
const DOCS = [
  "README.md",
  "bench/README.md",
  ...[...Deno.readDirSync(new URL("docs/", ROOT))].map((entry) => `docs/${entry.name}`),
].filter((path) => path.endsWith(".md"));
const TASKS = Object.keys(
  JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))).tasks as Record<string, string>,
);
/** Tasks that run Deno's own commands (their `--help` is Deno's); the rest are ours. */
const DENO_COMMANDS = new Set(["test", "check"]);

/** Every task some page names as `deno task X`. */
function documentedTasks(): string[] {
  const named = new Set<string>();
  for (const path of DOCS) {
    for (
      const match of Deno.readTextFileSync(new URL(path, ROOT)).matchAll(/deno task ([a-z-]+)/g)
    ) {
      named.add(match[1]);
    }
  }
  return [...named].sort();
}

async function task(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("every task the docs name exists and answers --help with its usage", async () => {
  const named = documentedTasks();
  assert.ok(named.length >= 8, `tasks named in the docs: ${named}`);
  const output = await Deno.makeTempDir({ prefix: "rcs-help-" });
  try {
    for (const name of named) {
      assert.ok(TASKS.includes(name), `docs name deno task ${name}, which deno.json lacks`);
      const result = await task([name, "--help"], { COMPILE_OUTPUT: `${output}/built` });
      assert.equal(result.code, 0, `deno task ${name} --help: ${result.stderr}`);
      if (DENO_COMMANDS.has(name)) {
        assert.match(result.stdout, /Usage:/, `deno task ${name} --help`);
      } else {
        assert.match(result.stdout, new RegExp(`^usage: deno task (${name}|start)`), name);
        assert.match(result.stdout, /exit status:/, `deno task ${name} --help names exit codes`);
      }
    }
    // compile --help built nothing.
    assert.deepEqual([...Deno.readDirSync(output)], []);
  } finally {
    await Deno.remove(output, { recursive: true });
  }
});

Deno.test("unknown options are refused with exit 2; export --format ttl is refused", async () => {
  for (
    const args of [
      ["start", "--no-such-flag"],
      ["backup", "x.db", "--no-such-flag"],
      ["import", "file.nt", "--collection", "https://x.org/c", "--no-such-flag"],
      ["export", "--collection", "https://x.org/c", "--no-such-flag"],
      ["compile", "--no-such-flag"],
      ["bench", "--no-such-flag"],
    ]
  ) {
    const result = await task(args);
    assert.equal(result.code, 2, `deno task ${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, /--no-such-flag/);
    assert.match(result.stderr, /usage: deno task/);
  }
  const ttl = await task(["export", "--collection", "https://x.org/c", "--format", "ttl"]);
  assert.equal(ttl.code, 2);
  assert.match(ttl.stderr, /--format ttl: an export is N-Quads \(nquads\) or TriG \(trig\)/);
  assert.equal(ttl.stdout, "");
});

Deno.test("the CLI names the URL it could not reach", async () => {
  // A port nothing listens on: bind one, note it, close it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const result = await task([
    "export",
    "--collection",
    "https://x.org/c",
    "--url",
    `http://127.0.0.1:${port}`,
  ]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(`Cannot reach the service at http://127\\.0\\.0\\.1:${port}`),
  );
});
