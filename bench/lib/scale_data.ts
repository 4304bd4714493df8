/**
 * Generated items of the shape issue 27 measured at scale: 50 triples each, typed with one of
 * 10 classes, a title and a description drawn from a 5,000-word vocabulary with a Zipf
 * distribution, language-tagged labels, dates, numbers, a blank-node creator and links to
 * 1,000 shared concepts. Deterministic: item `n` is the same in every run, so a file written
 * once is reused, and the words a bench searches for are chosen from measured frequencies.
 */
import { DataFactory, type Quad } from "n3";

const { namedNode, literal, blankNode, quad } = DataFactory;

export const SCALE_BASE = "https://data.example.org/id/scale/";
const VOCAB = "https://data.example.org/vocab#";
const DCT = "http://purl.org/dc/terms/";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const FOAF = "http://xmlns.com/foaf/0.1/";

/** The 10 classes items are typed with. */
export const SCALE_CLASSES: readonly string[] = Array.from(
  { length: 10 },
  (_, n) => `${VOCAB}Class${n}`,
);
const VOCABULARY_SIZE = 5000;
const CONCEPTS = 1000;
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "po", "da", "fe"];

/** The vocabulary, most frequent word first: pronounceable, distinct, deterministic. */
export const SCALE_WORDS: readonly string[] = (() => {
  const words: string[] = [];
  for (let n = 0; words.length < VOCABULARY_SIZE; n++) {
    let word = "";
    let rest = n;
    do {
      word += SYLLABLES[rest % SYLLABLES.length];
      rest = Math.floor(rest / SYLLABLES.length);
    } while (rest > 0);
    words.push(word + "x");
  }
  return words;
})();

/** Cumulative Zipf weights (1/rank) for sampling by binary search. */
const ZIPF = (() => {
  const cumulative = new Float64Array(VOCABULARY_SIZE);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) cumulative[rank] = sum += 1 / (rank + 1);
  return cumulative.map((value) => value / sum);
})();

/** mulberry32: a small seeded generator, so item `n` is the same in every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function zipfWord(next: () => number): number {
  const target = next();
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ZIPF[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The URI of item `n`. */
export function scaleItemUri(n: number): string {
  return `${SCALE_BASE}${String(n).padStart(7, "0")}`;
}

/** Item `n`: its URI, its 50 triples, and the vocabulary ranks of the words it holds. */
export function scaleItem(n: number): { uri: string; quads: Quad[]; words: Set<number> } {
  const next = random(n * 2654435761 + 1);
  const uri = scaleItemUri(n);
  const subject = namedNode(uri);
  const words = new Set<number>();
  const sentence = (length: number) => {
    const parts: string[] = [];
    for (let i = 0; i < length; i++) {
      const rank = zipfWord(next);
      words.add(rank);
      parts.push(SCALE_WORDS[rank]);
    }
    return parts.join(" ");
  };
  const quads: Quad[] = [];
  const add = (predicate: string, object: Quad["object"], on = subject as Quad["subject"]) =>
    quads.push(quad(on, namedNode(predicate), object));
  add(RDF_TYPE, namedNode(SCALE_CLASSES[Math.floor(next() * SCALE_CLASSES.length)]));
  add(DCT + "title", literal(sentence(6), "en"));
  add(RDFS + "label", literal(sentence(3), "de"));
  add(RDFS + "label", literal(sentence(3), "fr"));
  add(DCT + "description", literal(sentence(20), "en"));
  const day = Math.floor(next() * 20000);
  add(DCT + "created", literal(isoDate(day), namedNode(XSD + "date")));
  add(DCT + "modified", literal(`${isoDate(day + 30)}T12:00:00Z`, namedNode(XSD + "dateTime")));
  add(VOCAB + "pages", literal(String(10 + Math.floor(next() * 990)), namedNode(XSD + "integer")));
  const creator = blankNode(`c${n}`);
  add(DCT + "creator", creator);
  add(FOAF + "name", literal(`${sentence(1)} ${sentence(1)}`), creator);
  add(FOAF + "mbox", namedNode(`mailto:author${n % 5000}@example.org`), creator);
  for (let i = 0; i < 5; i++) {
    add(DCT + "subject", namedNode(`${VOCAB}concept/${Math.floor(next() * CONCEPTS)}`));
  }
  while (quads.length < 50) {
    const field = quads.length % 7;
    add(`${VOCAB}keyword${field}`, literal(sentence(1)));
  }
  return { uri, quads, words };
}

function isoDate(day: number): string {
  return new Date(Date.UTC(1970, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
}

/** Words to search for, chosen from the document frequencies of the generated items. */
export interface ScaleQueries {
  mostFrequent: string;
  /** In about half the items. */
  common: string;
  /** Two words of about a fifth of the items each. */
  twoWords: string;
  /** In about 0.1% of the items. */
  rare: string;
  /** A class to filter on. */
  type: string;
}

/** Counts, per vocabulary rank, how many items hold the word. */
export class WordFrequencies {
  readonly counts = new Uint32Array(VOCABULARY_SIZE);
  items = 0;
  add(words: Set<number>): void {
    this.items++;
    for (const rank of words) this.counts[rank]++;
  }
  /** The words whose document frequency is nearest each target share. */
  queries(): ScaleQueries {
    const nearest = (share: number, skip = -1) => {
      let best = 0;
      let distance = Infinity;
      this.counts.forEach((count, rank) => {
        const d = Math.abs(count / this.items - share);
        if (rank !== skip && d < distance) [best, distance] = [rank, d];
      });
      return best;
    };
    const fifth = nearest(0.2);
    return {
      mostFrequent: SCALE_WORDS[0],
      common: SCALE_WORDS[nearest(0.5)],
      twoWords: `${SCALE_WORDS[fifth]} ${SCALE_WORDS[nearest(0.2, fifth)]}`,
      rare: SCALE_WORDS[nearest(0.001)],
      type: SCALE_CLASSES[3],
    };
  }
}

/** A term in N-Triples (and TriG) syntax. */
export function ntTerm(term: Quad["subject"] | Quad["object"]): string {
  if (term.termType === "NamedNode") return `<${term.value}>`;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  const literal = term as unknown as {
    value: string;
    language: string;
    datatype: { value: string };
  };
  const text = JSON.stringify(literal.value);
  if (literal.language) return `${text}@${literal.language}`;
  if (literal.datatype.value !== "http://www.w3.org/2001/XMLSchema#string") {
    return `${text}^^<${literal.datatype.value}>`;
  }
  return text;
}
