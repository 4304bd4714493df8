/**
 * The W3C RDF Dataset Canonicalization (RDFC-1.0) test suite, run through the module the
 * service hashes with: every eval test byte for byte, every map test, and the negative
 * (poison graph) test.
 */
import { strict as assert } from "node:assert";
import { Parser, type Quad } from "n3";
import {
  type CanonicalizationHashAlgorithm,
  canonicalizeDataset,
  DEFAULT_MAX_WORK_FACTOR,
} from "../../src/rdf/canonical_hash.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";

const SUITE = new URL("../fixtures/rdf-canon/", import.meta.url);
/** The number of eval tests in the RDFC-1.0 suite this service was built against. */
const EXPECTED_EVAL_TESTS = 64;
/** What the negative test may take at most before its refusal. */
const POISON_DEADLINE_MS = 2_000;

interface ManifestEntry {
  id: string;
  type: string;
  name: string;
  action: string;
  result?: string;
  hashAlgorithm?: string;
}

const manifest: { entries: ManifestEntry[] } = JSON.parse(
  await Deno.readTextFile(new URL("manifest.jsonld", SUITE)),
);
const entriesOf = (type: string) => manifest.entries.filter((entry) => entry.type === type);

/** The input of a case, blank node labels kept as written (map tests name them). */
async function readInput(entry: ManifestEntry): Promise<Quad[]> {
  const text = await Deno.readTextFile(new URL(entry.action, SUITE));
  // A prefix of exactly "_:" makes n3 keep the document's own labels.
  return new Parser({ format: "N-Quads", blankNodePrefix: "_:" }).parse(text);
}

/** The manifest names hash functions `SHA256`/`SHA384`; absent means SHA-256. */
function hashAlgorithmOf(entry: ManifestEntry): CanonicalizationHashAlgorithm {
  const name = entry.hashAlgorithm ?? "SHA256";
  const algorithm = name.replace(/^SHA-?/, "SHA-");
  assert.ok(algorithm === "SHA-256" || algorithm === "SHA-384", `unknown hash ${name}`);
  return algorithm;
}

const caseName = (entry: ManifestEntry) => `${entry.id.slice(1)} ${entry.name}`;

Deno.test("RDFC-1.0 eval tests: canonical N-Quads byte for byte", async (t) => {
  const cases = entriesOf("rdfc:RDFC10EvalTest");
  let passed = 0;
  for (const entry of cases) {
    const ok = await t.step(caseName(entry), async () => {
      const expected = await Deno.readTextFile(new URL(entry.result!, SUITE));
      const { nquads } = await canonicalizeDataset(await readInput(entry), {
        algorithm: hashAlgorithmOf(entry),
      });
      assert.equal(nquads, expected);
    });
    if (ok) passed++;
  }
  assert.equal(cases.length, EXPECTED_EVAL_TESTS, "eval tests listed in the manifest");
  assert.equal(passed, cases.length, "eval tests passed");
});

Deno.test("RDFC-1.0 map tests: issued identifiers", async (t) => {
  const cases = entriesOf("rdfc:RDFC10MapTest");
  assert.ok(cases.length > 0, "the manifest lists map tests");
  let passed = 0;
  for (const entry of cases) {
    const ok = await t.step(caseName(entry), async () => {
      const expected = JSON.parse(await Deno.readTextFile(new URL(entry.result!, SUITE)));
      const { issuedIdentifiers } = await canonicalizeDataset(await readInput(entry), {
        algorithm: hashAlgorithmOf(entry),
      });
      assert.deepEqual(Object.fromEntries(issuedIdentifiers), expected);
    });
    if (ok) passed++;
  }
  assert.equal(passed, cases.length, "map tests passed");
});

Deno.test("RDFC-1.0 negative test: the poison graph is refused quickly", async (t) => {
  const cases = entriesOf("rdfc:RDFC10NegativeEvalTest");
  assert.equal(cases.length, 1, "negative tests listed in the manifest");
  for (const entry of cases) {
    const quads = await readInput(entry);
    // Without a time limit, so the work factor alone has to stop it.
    await t.step(`${caseName(entry)} (work factor ${DEFAULT_MAX_WORK_FACTOR})`, async () => {
      const started = performance.now();
      await assert.rejects(
        canonicalizeDataset(quads, { algorithm: hashAlgorithmOf(entry), timeLimitMs: Infinity }),
        (thrown: unknown) => {
          const error = asProblem(thrown);
          assert.ok(error instanceof ProblemError, `not a ProblemError: ${thrown}`);
          assert.equal(error.status, 422);
          assert.equal(error.slug, "canonicalization-limit");
          return true;
        },
      );
      const elapsed = performance.now() - started;
      assert.ok(elapsed < POISON_DEADLINE_MS, `refused after ${elapsed.toFixed(0)} ms`);
    });
  }
});
