/**
 * RDFC-1.0 canonicalisation and the content hash built on it.
 *
 * rdf-canonize is handed parsed quads (on an N-Quads string it is quadratic). Around it:
 * duplicate quads are removed (that path keeps them), blank node labels that would pass
 * for canonical ones are renamed, and the work is bounded both by a deterministic work
 * factor and by a wall-clock limit.
 */
import { createHash } from "node:crypto";
// @ts-types="@types/n3"
import { type BlankNode, DataFactory, type Quad, type Term } from "n3";
import canonize from "rdf-canonize";
import { DomainError } from "../errors/domain_error.ts";
import { distinctQuads } from "./dedupe.ts";
import { withLowerCaseTag } from "./language_tags.ts";

/**
 * The default work factor: rdf-canonize may run `n ** 3` deep (N-degree) hashing steps,
 * `n` being the number of blank nodes whose first-degree hashes collide.
 *
 * Measured on the W3C suite: the "poison – evil" cases (test044c–046c) need 430 steps for
 * 12 blank nodes, a factor of 2.44, so 2 refuses them and 3 is the smallest that passes all
 * 64 cases. The 10-node clique (test074c) is then refused after 1000 steps, in ~0.3 s.
 */
export const DEFAULT_MAX_WORK_FACTOR = 3;

/**
 * The default wall-clock limit in milliseconds, a backstop for what the work factor cannot
 * bound: its budget grows with the graph, so three disjoint 10-node cliques are allowed
 * 27,000 steps (~7 s) and ten of them hours. The whole W3C suite needs under 100 ms per
 * case, but the clock also runs during the linear work on a large body (100k triples take
 * ~1 s on a loaded 2-core machine), and rdf-canonize only looks at it while deep hashing,
 * so the limit leaves room for the largest bodies the service accepts.
 */
export const DEFAULT_TIME_LIMIT_MS = 5_000;

/** The hash function RDFC-1.0 uses inside the algorithm (the W3C suite also tests SHA-384). */
export type CanonicalizationHashAlgorithm = "SHA-256" | "SHA-384";

/** Options of {@link canonicalize} and {@link canonicalizeDataset}. */
export interface CanonicalizeOptions {
  /** RDFC-1.0's internal hash function; SHA-256 unless stated. */
  algorithm?: CanonicalizationHashAlgorithm;
  /**
   * Exponent of the deep-hashing budget (see {@link DEFAULT_MAX_WORK_FACTOR}): a
   * non-negative integer, or `Infinity` for no budget. rdf-canonize counts the budget down
   * to exactly zero, so a fractional factor would never stop it and is refused.
   */
  maxWorkFactor?: number;
  /** Wall-clock limit in milliseconds (see {@link DEFAULT_TIME_LIMIT_MS}); `Infinity` for none. */
  timeLimitMs?: number;
  /** Aborts the work; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The canonical form of a dataset and how its blank nodes were labelled. */
export interface CanonicalDataset {
  /** The canonical N-Quads document (sorted lines, each ending in `\n`). */
  nquads: string;
  /** Input blank node label → canonical label (`c14n0`, `c14n1`, …). */
  issuedIdentifiers: Map<string, string>;
  /** How many distinct quads the dataset has. */
  quads: number;
}

/** Options of {@link canonicalHash}: the hash is always SHA-256 over RDFC-1.0 with SHA-256. */
export type CanonicalHashOptions = Omit<CanonicalizeOptions, "algorithm">;

/** The content hash of a graph, in the shape the hash operation answers with. */
export interface CanonicalHash {
  /** SHA-256 of the UTF-8 canonical N-Quads document, 64 lowercase hex digits. */
  hash: string;
  algorithm: "SHA-256";
  canonicalization: "RDFC-1.0";
  /** How many distinct quads were hashed. */
  quads: number;
}

/** rdf-canonize's message when the deep-hashing budget is spent (lib/RDFC10.js). */
const WORK_LIMIT_MESSAGE = /^Maximum deep iterations exceeded \((\d+|Infinity)\)\.$/;
/** rdf-canonize's message when its abort signal fired. */
const ABORTED_MESSAGE = /^Abort signal received: /;
/** The prefix rdf-canonize issues; it takes input labels with this prefix as already issued. */
const CANONICAL_PREFIX = "c14n";

/**
 * Canonicalises `quads` with RDFC-1.0 and reports the issued blank node identifiers.
 *
 * @throws {DomainError} 422 `canonicalization-limit` when the graph needs more work than
 *   the work factor or the time limit allows.
 * @throws {RangeError} on an invalid `maxWorkFactor` or `timeLimitMs`.
 */
export async function canonicalizeDataset(
  quads: Iterable<Quad>,
  options: CanonicalizeOptions = {},
): Promise<CanonicalDataset> {
  const maxWorkFactor = options.maxWorkFactor ?? DEFAULT_MAX_WORK_FACTOR;
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  if (!(Number.isInteger(maxWorkFactor) && maxWorkFactor >= 0) && maxWorkFactor !== Infinity) {
    throw new RangeError(`maxWorkFactor must be a non-negative integer, got ${maxWorkFactor}`);
  }
  if (!(timeLimitMs > 0)) {
    throw new RangeError(`timeLimitMs must be positive, got ${timeLimitMs}`);
  }
  options.signal?.throwIfAborted();

  const distinct = distinctQuads(lowerCaseTags(quads));
  const { input, originalLabels } = withoutCanonicalLookingLabels(distinct);
  const issued = new Map<string, string>();

  const deadline = new AbortController();
  const timer = Number.isFinite(timeLimitMs)
    ? setTimeout(() => deadline.abort(), timeLimitMs)
    : undefined;
  const forwardAbort = () => deadline.abort();
  options.signal?.addEventListener("abort", forwardAbort, { once: true });
  try {
    const nquads: string = await canonize.canonize(input, {
      algorithm: "RDFC-1.0",
      messageDigestAlgorithm: options.algorithm ?? "SHA-256",
      maxWorkFactor,
      canonicalIdMap: issued,
      signal: deadline.signal,
    });
    const issuedIdentifiers = originalLabels
      ? new Map([...issued].map(([label, canonical]) => [originalLabels.get(label)!, canonical]))
      : issued;
    return { nquads, issuedIdentifiers, quads: distinct.length };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const message = error instanceof Error ? error.message : "";
    if (WORK_LIMIT_MESSAGE.test(message)) {
      throw limitProblem(`it needs more than the work factor ${maxWorkFactor} allows`);
    }
    if (deadline.signal.aborted && ABORTED_MESSAGE.test(message)) {
      throw limitProblem(`it takes longer than ${timeLimitMs} ms`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", forwardAbort);
  }
}

/**
 * The RDFC-1.0 canonical N-Quads document of `quads` (duplicates count once).
 *
 * @throws {DomainError} 422 `canonicalization-limit`, as {@link canonicalizeDataset}.
 */
export async function canonicalize(
  quads: Iterable<Quad>,
  options: CanonicalizeOptions = {},
): Promise<string> {
  return (await canonicalizeDataset(quads, options)).nquads;
}

/**
 * SHA-256 over the UTF-8 RDFC-1.0 canonical N-Quads of `quads`: equal for isomorphic
 * graphs whatever their blank node labels, quad order or duplicates.
 *
 * @throws {DomainError} 422 `canonicalization-limit`, as {@link canonicalizeDataset}.
 */
export async function canonicalHash(
  quads: Iterable<Quad>,
  options: CanonicalHashOptions = {},
): Promise<CanonicalHash> {
  const canonical = await canonicalizeDataset(quads, { ...options, algorithm: "SHA-256" });
  return {
    hash: sha256Hex(canonical.nquads),
    algorithm: "SHA-256",
    canonicalization: "RDFC-1.0",
    quads: canonical.quads,
  };
}

/**
 * SHA-256 of the UTF-8 bytes of `text`, lowercase hex. node:crypto hashes a string in
 * place; Web Crypto needs it encoded first and measured 3–5× slower on 10 MB here.
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function limitProblem(reason: string): DomainError {
  return new DomainError("canonicalization-limit", {
    detail: `The graph cannot be canonicalized within the configured limit: ${reason}. ` +
      "Graphs with many blank nodes that are indistinguishable from each other need " +
      "exponential work; give some of them IRIs or distinguishing properties.",
  });
}

/**
 * The quads with their language tags in lower case. RDFC-1.0 writes canonical N-Quads, whose
 * tags RDF 1.2 N-Triples has in lower case; rdf-canonize writes a tag as given, and the
 * service keeps tags as written (`language_tags.ts`). So `"a"@en-US` and `"a"@en-us`, one
 * term to RDF, hash alike, and as they did before tags were kept as written.
 */
function* lowerCaseTags(quads: Iterable<Quad>): Iterable<Quad> {
  for (const quad of quads) yield withLowerCaseTag(quad);
}

/**
 * rdf-canonize writes a blank node whose label starts with `c14n` unchanged, as if it had
 * issued it, so such an input label could merge with an issued one and two different
 * graphs would share a hash. When any label looks like that, every blank node is renamed
 * (the canonical form does not depend on labels) and the old labels are returned.
 */
function withoutCanonicalLookingLabels(
  quads: Quad[],
): { input: Quad[]; originalLabels?: Map<string, string> } {
  const looksCanonical = (term: Term) =>
    term.termType === "BlankNode" && term.value.startsWith(CANONICAL_PREFIX);
  if (
    !quads.some((q) =>
      looksCanonical(q.subject) || looksCanonical(q.object) || looksCanonical(q.graph)
    )
  ) {
    return { input: quads };
  }
  const renamed = new Map<string, BlankNode>();
  const originalLabels = new Map<string, string>();
  const rename = <T extends Term>(term: T): T => {
    if (term.termType !== "BlankNode") return term;
    let fresh = renamed.get(term.value);
    if (!fresh) {
      fresh = DataFactory.blankNode(`r${renamed.size}`);
      renamed.set(term.value, fresh);
      originalLabels.set(fresh.value, term.value);
    }
    return fresh as unknown as T;
  };
  const input = quads.map((q) =>
    DataFactory.quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph))
  );
  return { input, originalLabels };
}
