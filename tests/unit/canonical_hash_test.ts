import { strict as assert } from "node:assert";
import { DataFactory, Parser, type Quad } from "n3";
import {
  canonicalHash,
  type CanonicalizationHashAlgorithm,
  canonicalize,
  canonicalizeDataset,
  sha256Hex,
} from "../../src/rdf/canonical_hash.ts";
import { distinctQuads, quadKey } from "../../src/rdf/dedupe.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";

const { quad, namedNode, blankNode, literal, defaultGraph } = DataFactory;
const SUITE = new URL("../fixtures/rdf-canon/rdfc10/", import.meta.url);
const EX = "http://example.com/";
const p = namedNode(`${EX}p`);

const parseNQuads = (text: string): Quad[] => new Parser({ format: "N-Quads" }).parse(text);
const readCase = (file: string) => Deno.readTextFile(new URL(file, SUITE));

/** SHA-256 through Web Crypto, independent of the module's node:crypto path. */
async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** `cliques` disjoint cliques of ten blank nodes: the W3C poison graph, repeated. */
function cliques(count: number): Quad[] {
  const quads: Quad[] = [];
  for (let c = 0; c < count; c++) {
    for (let i = 0; i < 10; i++) {
      for (let j = 0; j < 10; j++) {
        quads.push(quad(blankNode(`k${c}_${i}`), p, blankNode(`k${c}_${j}`)));
      }
    }
  }
  return quads;
}

function assertLimitProblem(thrown: unknown): true {
  const error = asProblem(thrown);
  assert.ok(error instanceof ProblemError, `not a ProblemError: ${thrown}`);
  assert.equal(error.status, 422);
  assert.equal(error.slug, "canonicalization-limit");
  assert.equal(error.toBody().type, "/problems/canonicalization-limit");
  return true;
}

Deno.test("canonicalHash is SHA-256 over the canonical N-Quads of the W3C expectation", async () => {
  for (const test of ["test020", "test044", "test060"]) {
    const expected = await readCase(`${test}-rdfc10.nq`);
    const result = await canonicalHash(parseNQuads(await readCase(`${test}-in.nq`)));
    assert.match(result.hash, /^[0-9a-f]{64}$/);
    assert.equal(result.hash, await webCryptoHex(expected), test);
    assert.equal(result.algorithm, "SHA-256");
    assert.equal(result.canonicalization, "RDFC-1.0");
    assert.equal(result.quads, expected.split("\n").length - 1);
  }
});

Deno.test("sha256Hex agrees with Web Crypto on non-ASCII text", async () => {
  for (const text of ["", "a", "é ü 漢字 🎉", "\u0000\n".repeat(1000)]) {
    assert.equal(sha256Hex(text), await webCryptoHex(text));
  }
});

Deno.test("the empty dataset canonicalises to the empty document", async () => {
  assert.equal(await canonicalize([]), "");
  const result = await canonicalHash([]);
  assert.equal(result.hash, await webCryptoHex(""));
  assert.equal(result.quads, 0);
});

Deno.test("duplicate quads count once in the document and in the quad count", async () => {
  const once = [
    quad(blankNode("a"), p, literal("x")),
    quad(namedNode(`${EX}s`), p, blankNode("a"), namedNode(`${EX}g`)),
  ];
  const twice = [...once, ...once.map((q) => quad(q.subject, q.predicate, q.object, q.graph))];
  assert.equal(await canonicalize(twice), await canonicalize(once));
  const hashes = [await canonicalHash(once), await canonicalHash(twice)];
  assert.deepEqual(hashes[1], hashes[0]);
  assert.equal(hashes[1].quads, 2);
});

Deno.test("distinctQuads tells apart terms whose text is the same", () => {
  const s = namedNode(`${EX}s`);
  const quads = [
    quad(s, p, literal("1")),
    quad(s, p, literal("1", namedNode("http://www.w3.org/2001/XMLSchema#integer"))),
    quad(s, p, literal("1", "en")),
    quad(s, p, namedNode("1")),
    quad(s, p, blankNode("1")),
    quad(s, p, literal("1"), namedNode(`${EX}g`)),
    quad(s, p, literal("1"), defaultGraph()),
    quad(s, p, literal("1", "EN")), // n3 lower-cases language tags: same as "en"
  ];
  assert.equal(distinctQuads(quads).length, 6);
  assert.equal(new Set(quads.map(quadKey)).size, 6);
  // Length prefixes: moving text from one part to the next changes the key.
  assert.notEqual(
    quadKey(quad(namedNode("ab"), p, literal("c"))),
    quadKey(quad(namedNode("a"), p, literal("bc"))),
  );
});

Deno.test("input labels that look canonical cannot merge blank nodes", async () => {
  const distinct = [
    quad(blankNode("c14n0"), p, literal("x")),
    quad(blankNode("z"), p, literal("y")),
  ];
  const merged = [
    quad(blankNode("c14n0"), p, literal("x")),
    quad(blankNode("c14n0"), p, literal("y")),
  ];
  const plain = [quad(blankNode("a"), p, literal("x")), quad(blankNode("b"), p, literal("y"))];
  assert.equal(await canonicalize(distinct), await canonicalize(plain));
  assert.notEqual((await canonicalHash(distinct)).hash, (await canonicalHash(merged)).hash);
  const { issuedIdentifiers } = await canonicalizeDataset(distinct);
  assert.deepEqual(Object.fromEntries(issuedIdentifiers), { c14n0: "c14n1", z: "c14n0" });
});

Deno.test("SHA-384 changes the canonical labels where the W3C suite says so", async () => {
  const input = parseNQuads(await readCase("test075-in.nq"));
  const as = (algorithm: CanonicalizationHashAlgorithm) => canonicalize(input, { algorithm });
  assert.equal(await as("SHA-384"), await readCase("test075-rdfc10.nq"));
  assert.equal(await as("SHA-256"), await readCase("test020-rdfc10.nq"));
  assert.notEqual(await as("SHA-384"), await as("SHA-256"));
});

Deno.test("the work factor decides which graphs are refused", async () => {
  const evil = parseNQuads(await readCase("test044-in.nq"));
  const limits = { timeLimitMs: Infinity };
  await assert.rejects(canonicalHash(evil, { ...limits, maxWorkFactor: 2 }), assertLimitProblem);
  assert.match((await canonicalHash(evil, { ...limits, maxWorkFactor: 3 })).hash, /^[0-9a-f]{64}$/);
  assert.equal(
    await canonicalize(evil, { ...limits, maxWorkFactor: Infinity }),
    await readCase("test044-rdfc10.nq"),
  );
  // A graph that needs no deep hashing passes even with no budget at all.
  const simple = parseNQuads(await readCase("test004-in.nq"));
  assert.equal(
    await canonicalize(simple, { maxWorkFactor: 0 }),
    await readCase("test004-rdfc10.nq"),
  );
  const circle = parseNQuads(await readCase("test021-in.nq"));
  await assert.rejects(canonicalize(circle, { maxWorkFactor: 0 }), assertLimitProblem);
});

Deno.test("the poison clique is refused by the default work factor in well under 2 s", async () => {
  const started = performance.now();
  await assert.rejects(canonicalHash(cliques(1), { timeLimitMs: Infinity }), (error) => {
    assertLimitProblem(error);
    assert.match((error as Error).message, /work factor 3/);
    return true;
  });
  assert.ok(performance.now() - started < 2_000);
});

Deno.test("repeated poison cliques are refused by the time limit", async () => {
  const timeLimitMs = 300;
  const started = performance.now();
  await assert.rejects(canonicalHash(cliques(3), { timeLimitMs }), (error) => {
    assertLimitProblem(error);
    assert.match((error as Error).message, /300 ms/);
    return true;
  });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= timeLimitMs && elapsed < timeLimitMs + 1_000, `${elapsed} ms`);
});

Deno.test("the caller's abort signal rejects with its own reason", async () => {
  const reason = new Error("client went away");
  await assert.rejects(
    canonicalHash(cliques(1), { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
  const controller = new AbortController();
  const running = canonicalHash(cliques(3), { timeLimitMs: Infinity, signal: controller.signal });
  setTimeout(() => controller.abort(reason), 50);
  await assert.rejects(running, (error) => error === reason);
});

Deno.test("other errors are not reported as a canonicalisation limit", async () => {
  const quads = [quad(blankNode("a"), p, literal("x"))];
  await assert.rejects(
    canonicalize(quads, { algorithm: "MD5" as CanonicalizationHashAlgorithm }),
    (error) => !asProblem(error) && /Unsupported algorithm/.test(String(error)),
  );
});

Deno.test("invalid limits are refused before any work", async () => {
  const quads = [quad(blankNode("a"), p, literal("x"))];
  for (const maxWorkFactor of [-1, 2.5, NaN]) {
    await assert.rejects(canonicalHash(quads, { maxWorkFactor }), RangeError);
  }
  for (const timeLimitMs of [0, -5, NaN]) {
    await assert.rejects(canonicalHash(quads, { timeLimitMs }), RangeError);
  }
});
