/**
 * The content-hash pipeline on the bare libraries, without HTTP: a JSON-LD body of catalogue
 * items is parsed (`JSON.parse`, `jsonld.toRDF`, conversion to n3 quads), canonicalised with
 * RDFC-1.0 (duplicates removed first) and digested with SHA-256.
 *
 * Run: `deno run --allow-all bench/hash_pipeline.ts`
 *
 * @module
 */
import { DataFactory, type Quad } from "n3";
import jsonld from "jsonld";
import { canonicalizeDataset, sha256Hex } from "../src/rdf/canonical_hash.ts";

const { namedNode, blankNode, literal, defaultGraph, quad } = DataFactory;

/** Triples each generated item contributes (see {@link itemNode}). */
const TRIPLES_PER_ITEM = 20;

const CONTEXT = {
  "@vocab": "http://example.org/vocab#",
  "xsd": "http://www.w3.org/2001/XMLSchema#",
  "id": "@id",
  "type": "@type",
  "title": { "@container": "@language" },
  "created": { "@type": "xsd:dateTime" },
  "publisher": { "@type": "@id" },
  "about": { "@type": "@id" },
  "license": { "@type": "@id" },
};

/** One catalogue item: 20 triples, two of them about blank nodes' own properties. */
function itemNode(index: number): Record<string, unknown> {
  return {
    "id": `https://data.example.org/item/${index}`,
    "type": "Document",
    "title": { "en": `Document ${index}`, "de": `Dokument ${index}` },
    "description": `Item ${index} describes a thing at some length, with "quotes" and ünïcode.`,
    "created": `2024-01-${String(1 + index % 28).padStart(2, "0")}T10:00:00Z`,
    "pages": index % 500,
    "rating": 1 + (index % 40) / 10 + 0.05,
    "keyword": [`k${index % 7}`, `k${index % 11}`, `topic ${index % 13}`],
    "author": {
      "type": "Person",
      "name": `Author ${index % 300}`,
      "email": `author${index}@example.org`,
    },
    "publisher": `https://data.example.org/org/${index % 100}`,
    "about": `https://data.example.org/topic/${index % 50}`,
    "identifier": `ID-${index}`,
    "license": "https://creativecommons.org/licenses/by/4.0/",
    "section": { "heading": `Section of ${index}` },
  };
}

/** A JSON-LD body (as sent over HTTP) of about `tripleCount` triples. */
export function jsonLdBody(tripleCount: number): string {
  const items = Math.max(1, Math.round(tripleCount / TRIPLES_PER_ITEM));
  const graph = Array.from({ length: items }, (_, index) => itemNode(index));
  return JSON.stringify({ "@context": CONTEXT, "@graph": graph });
}

interface PlainTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

function toN3Term(term: PlainTerm) {
  switch (term.termType) {
    case "NamedNode":
      return namedNode(term.value);
    case "BlankNode":
      return blankNode(term.value);
    case "Literal":
      return literal(term.value, term.language || namedNode(term.datatype!.value));
    default:
      return defaultGraph();
  }
}

/** Timings of one run of {@link benchHashPipeline}, in milliseconds. */
export interface HashPipelineTimings {
  /** `JSON.parse`, `jsonld.toRDF` and conversion to n3 quads. */
  parseMs: number;
  /** Removing duplicates and RDFC-1.0 canonicalisation. */
  canonicalizeMs: number;
  /** SHA-256 over the canonical N-Quads. */
  digestMs: number;
  totalMs: number;
}

/** Runs the hash pipeline once on a JSON-LD body of about `tripleCount` triples. */
export async function benchHashPipeline(tripleCount: number): Promise<HashPipelineTimings> {
  const body = jsonLdBody(tripleCount);
  const started = performance.now();
  const plain = await jsonld.toRDF(JSON.parse(body)) as unknown as {
    subject: PlainTerm;
    predicate: PlainTerm;
    object: PlainTerm;
    graph: PlainTerm;
  }[];
  const quads = plain.map((q) =>
    quad(
      toN3Term(q.subject) as Quad["subject"],
      toN3Term(q.predicate) as Quad["predicate"],
      toN3Term(q.object) as Quad["object"],
      toN3Term(q.graph) as Quad["graph"],
    )
  );
  const parsed = performance.now();
  const canonical = await canonicalizeDataset(quads);
  const canonicalized = performance.now();
  const hash = sha256Hex(canonical.nquads);
  const digested = performance.now();
  if (canonical.quads !== quads.length || hash.length !== 64) {
    throw new Error(`pipeline lost quads: ${quads.length} in, ${canonical.quads} hashed`);
  }
  return {
    parseMs: parsed - started,
    canonicalizeMs: canonicalized - parsed,
    digestMs: digested - canonicalized,
    totalMs: digested - started,
  };
}

if (import.meta.main) {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  await benchHashPipeline(2_000); // warm-up: JIT and module initialisation
  for (const triples of [10_000, 100_000]) {
    const timings = await benchHashPipeline(triples);
    console.log(
      `${triples} triples:`,
      Object.fromEntries(Object.entries(timings).map(([name, ms]) => [name, round(ms)])),
    );
  }
}
