/**
 * `deno task compile`: one self-contained executable at dist/rdf-content-service (or at
 * COMPILE_OUTPUT).
 *
 * `deno compile` needs the `denort` runtime for the target. It downloads it unless
 * DENORT_BIN names a local copy; where neither works (an offline machine), this script
 * says so plainly and fails, instead of leaving a half-built binary behind.
 *
 * `deno compile` does not check what DENORT_BIN is: given the Deno CLI (the only Deno binary
 * an npm install has) it reports success and writes a copy of the CLI that opens a REPL. So
 * this script refuses a DENORT_BIN that answers `--version` like the Deno CLI, and asks the
 * built file for its version: anything but `rdf-content-service <SERVICE_VERSION>` is not the
 * service, and is deleted.
 */
import { SERVICE_VERSION } from "../src/version.ts";

const USAGE = `usage: deno task compile

Builds one self-contained executable of the service at dist/rdf-content-service.

environment:
  COMPILE_OUTPUT   where to write it (default dist/rdf-content-service)
  DENORT_BIN       a local denort runtime for this Deno version and target (an offline
                   machine); without it, deno compile downloads one

exit status: 0 built and checked (it answers --version as the service); 1 the build failed
or what was built is not the service; 2 a usage error (this task takes no arguments).`;

// Before any work (a build downloads its runtime): `--help`, or arguments it does not take.
if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
  console.log(USAGE);
  Deno.exit(0);
}
if (Deno.args.length > 0) {
  console.error(`Unknown argument ${Deno.args[0]}\n\n${USAGE}`);
  Deno.exit(2);
}

const OUTPUT = Deno.env.get("COMPILE_OUTPUT") || "dist/rdf-content-service";
/** What the service prints for `--version` (src/main.ts). */
const EXPECTED_VERSION = `rdf-content-service ${SERVICE_VERSION}`;
/** How long a `--version` may take; the Deno CLI without arguments would wait on a REPL. */
const VERSION_TIMEOUT_MS = 15_000;

const args = [
  "compile",
  // The npm packages the lock file names, or a failure (deno.lock).
  "--frozen",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-ffi",
  // The service's heap bound, as \`deno task start\` gives it (docs/operations.md, "Memory").
  "--v8-flags=--max-old-space-size=1024",
  // The workbench's files are imported as text and bytes (src/ui/assets.ts): part of the
  // module graph, so embedded like code. deno.json enables the same for every task.
  "--unstable-raw-imports",
  // The SPARQL worker is loaded by URL at run time, so it must be embedded explicitly.
  "--include",
  "src/store_embedded/sparql_worker.ts",
  // Likewise the worker threads that parse and hash writes (src/items/rdf_work.ts).
  "--include",
  "src/items/rdf_worker.ts",
  // And the worker threads of indexing jobs' batches (src/indexing/index_batch_pool.ts).
  "--include",
  "src/index_batch_worker.ts",
  "--output",
  OUTPUT,
  "src/main.ts",
];

/** Runs `binary --version` with no input; the first line of its output, or why it failed. */
async function versionOf(binary: string): Promise<{ line: string } | { error: string }> {
  try {
    const result = await new Deno.Command(binary, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(VERSION_TIMEOUT_MS),
    }).output();
    const stdout = new TextDecoder().decode(result.stdout).trim();
    const stderr = new TextDecoder().decode(result.stderr).trim();
    return { line: (stdout || stderr).split("\n")[0] ?? "" };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const denort = Deno.env.get("DENORT_BIN");
if (denort) {
  try {
    Deno.statSync(denort);
  } catch {
    console.error(`DENORT_BIN is set to ${denort}, but no such file exists.`);
    Deno.exit(1);
  }
  // The Deno CLI answers "deno 2.9.6 (stable, release, …)"; denort is not a CLI.
  const answer = await versionOf(denort);
  if ("line" in answer && /^deno \d+\.\d+\.\d+/.test(answer.line)) {
    console.error(
      `DENORT_BIN=${denort} is the Deno CLI (it answers --version with "${answer.line}"), ` +
        "not the denort runtime. deno compile would copy the CLI and report success, but the " +
        "result opens a REPL instead of serving. The npm package of Deno carries only the " +
        "CLI: download the denort zip for this Deno version and target from dl.deno.land " +
        "(https://dl.deno.land/release/v" + Deno.version.deno + "/denort-" + Deno.build.target +
        ".zip), unpack it and set DENORT_BIN to the denort inside, or unset DENORT_BIN on a " +
        "machine with internet access.",
    );
    Deno.exit(1);
  }
  console.log(`Using the runtime at DENORT_BIN=${denort}`);
}

const result = await new Deno.Command(Deno.execPath(), {
  args,
  stdout: "inherit",
  stderr: "piped",
}).output();
const stderr = new TextDecoder().decode(result.stderr);
if (!result.success) {
  Deno.stderr.writeSync(result.stderr);
  if (!denort && /download|denort|dl\.deno\.land|network|dns|connect/i.test(stderr)) {
    console.error(
      "\ndeno compile could not fetch its runtime (denort) from the internet. On an offline " +
        "machine, download the denort zip for this Deno version and target elsewhere, unpack " +
        "it, and run again with DENORT_BIN=/path/to/denort.",
    );
  }
  Deno.exit(1);
}

// What was built must be the service, whatever runtime it was built on.
const built = await versionOf(OUTPUT);
if (!("line" in built) || built.line !== EXPECTED_VERSION) {
  await Deno.remove(OUTPUT).catch(() => {});
  const answer = "line" in built ? `answered --version with "${built.line}"` : built.error;
  console.error(
    `deno compile wrote ${OUTPUT}, but it is not the service: it ${answer}, where ` +
      `"${EXPECTED_VERSION}" was expected. It has been deleted.` +
      (denort ? ` Check that DENORT_BIN=${denort} is the denort runtime of Deno ` : "") +
      (denort ? `${Deno.version.deno} for ${Deno.build.target}.` : ""),
  );
  Deno.exit(1);
}
console.log(`Built ${OUTPUT} (${built.line}). Put customer.yml beside it, or pass --config PATH.`);
