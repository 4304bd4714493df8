/**
 * `deno task compile`: one self-contained executable at dist/rdf-content-service (or at
 * COMPILE_OUTPUT).
 *
 * `deno compile` needs the `denort` runtime for the target. It downloads it unless
 * DENORT_BIN names a local copy; where neither works (an offline machine), this script
 * says so plainly and fails, instead of leaving a half-built binary behind.
 */
const OUTPUT = Deno.env.get("COMPILE_OUTPUT") || "dist/rdf-content-service";

const args = [
  "compile",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-ffi",
  // The SPARQL worker is loaded by URL at run time, so it must be embedded explicitly.
  "--include",
  "src/store/sparql_worker.ts",
  "--output",
  OUTPUT,
  "src/main.ts",
];

const denort = Deno.env.get("DENORT_BIN");
if (denort) {
  try {
    Deno.statSync(denort);
  } catch {
    console.error(`DENORT_BIN is set to ${denort}, but no such file exists.`);
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
console.log(`Built ${OUTPUT}. Put customer.yml beside it, or pass --config PATH.`);
