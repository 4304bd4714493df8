/**
 * A plain clone is the whole product: no tracked file may reach for a directory beside the
 * repository (where the conformance suites once lived, outside version control). Every
 * fixture a test reads is under tests/fixtures/.
 */
import { strict as assert } from "node:assert";

const ROOT = new URL("../../", import.meta.url);
const THIS_FILE = "tests/unit/self_contained_test.ts";
// Spelt in pieces so that this file does not match its own check.
const OUTSIDE_PATHS = [".." + "/shared", "shared" + "/conformance"];

/** The repository's tracked files, relative to its root. */
async function trackedFiles(): Promise<string[]> {
  const result = await new Deno.Command("git", {
    args: ["ls-files", "-z"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(result.success, `git ls-files failed: ${new TextDecoder().decode(result.stderr)}`);
  return new TextDecoder().decode(result.stdout).split("\0").filter((path) => path !== "");
}

Deno.test("no tracked file names a directory outside the repository", async () => {
  const offenders: string[] = [];
  const files = await trackedFiles();
  assert.ok(files.length > 0, "git ls-files listed no file");
  for (const path of files) {
    if (path === THIS_FILE) continue;
    let text: string;
    try {
      text = await Deno.readTextFile(new URL(path, ROOT));
    } catch (error) {
      // Deleted in the working tree but still in the index: nothing to read.
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    for (const outside of OUTSIDE_PATHS) {
      if (text.includes(outside)) offenders.push(`${path} names ${outside}`);
    }
  }
  assert.deepEqual(offenders, [], "files reaching outside the repository");
});

Deno.test("the W3C RDFC-1.0 fixtures are in the repository, with their licence", async () => {
  const suite = new URL("tests/fixtures/rdf-canon/", ROOT);
  for (const file of ["LICENCE.md", "README.md", "manifest.jsonld", "rdfc10/test001-in.nq"]) {
    const info = await Deno.stat(new URL(file, suite));
    assert.ok(info.isFile, `tests/fixtures/rdf-canon/${file}`);
  }
});

Deno.test("the W3C RDF 1.1 Turtle, N-Triples and RDF/XML suites are here, with their licence", async () => {
  const suites = new URL("tests/fixtures/rdf-tests/", ROOT);
  const files = ["LICENSE", "SOURCE", "README.md"].concat(
    ["rdf-turtle", "rdf-n-triples", "rdf-xml"].map((suite) => `${suite}/manifest.ttl`),
  );
  for (const file of files) {
    const info = await Deno.stat(new URL(file, suites));
    assert.ok(info.isFile, `tests/fixtures/rdf-tests/${file}`);
  }
  const listed = await Deno.readTextFile(new URL("tests/fixtures/README.md", ROOT));
  assert.match(listed, /`rdf-tests\/`/);
});
