/**
 * SPARQL answers compared as multisets of solutions, blank nodes up to a renaming: two answers
 * are equal when one bijection between their blank nodes turns the rows of one into the rows
 * of the other, each row as often. Engines may relabel blank nodes (oxigraph and Jena do), so
 * labels alone cannot be compared across engines.
 *
 * The bijection is searched the way graph isomorphism is: the blank nodes of both answers are
 * coloured by the rows they occur in (the other blank nodes in them by their colours), the
 * colours refined until they split no further, and where a colour still holds several blank
 * nodes one pair is tried at a time (backtracking, within a budget). Answers whose blank
 * nodes are told apart by their rows, the usual case, need no search at all.
 */
import type { Term } from "n3";

/** One solution: variable name → term (an unbound variable is absent). */
export type Solution = Map<string, Term>;

export interface CompareOptions {
  /**
   * Language tags compared case-insensitively (RDF 1.1 term equality), for an engine that
   * keeps the case written; otherwise terms are compared exactly, as stored.
   */
  foldLanguage?: boolean;
  /** Blank nodes compared as they are labelled, not up to a renaming. */
  blankLabels?: boolean;
  /** Most pairs of blank nodes tried before giving up (an answer is then "undecided"). */
  budget?: number;
}

/** A term's comparison key; blank nodes by label. */
export function termKey(term: Term, foldLanguage = false): string {
  switch (term.termType) {
    case "NamedNode":
      return `<${term.value}>`;
    case "BlankNode":
      return `_:${term.value}`;
    case "Literal": {
      const { language, datatype } = term as Term & { language: string; datatype: Term };
      const value = JSON.stringify(term.value);
      if (language) return `${value}@${foldLanguage ? language.toLowerCase() : language}`;
      return `${value}^^<${datatype.value}>`;
    }
    default:
      return `${term.termType}:${term.value}`;
  }
}

/** A solution as one string over `names` (sorted), blank nodes masked or by label. */
function solutionKey(
  row: Solution,
  names: string[],
  foldLanguage: boolean,
  blank: (label: string) => string,
): string {
  return names.map((name) => {
    const term = row.get(name);
    if (!term) return `${name}:`;
    return `${name}:${
      term.termType === "BlankNode" ? blank(term.value) : termKey(term, foldLanguage)
    }`;
  }).join(" ");
}

function namesOf(...answers: Solution[][]): string[] {
  const names = new Set<string>();
  for (const rows of answers) {
    for (const row of rows) for (const name of row.keys()) names.add(name);
  }
  return [...names].sort();
}

function counted(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/**
 * Why `actual` is not a sub-multiset of `expected` (each of its rows at most as often), or
 * undefined when it is. Blank nodes are masked: every one equals every other.
 */
export function notSubMultiset(
  actual: Solution[],
  expected: Solution[],
  options: CompareOptions = {},
): string | undefined {
  const names = namesOf(actual, expected);
  const fold = options.foldLanguage === true;
  const blank = options.blankLabels ? (label: string) => `_:${label}` : () => "_:";
  const left = counted(expected.map((row) => solutionKey(row, names, fold, blank)));
  for (const row of actual) {
    const key = solutionKey(row, names, fold, blank);
    const n = left.get(key) ?? 0;
    if (n === 0) return `a row that the whole answer lacks (or has fewer times): ${key}`;
    left.set(key, n - 1);
  }
  return undefined;
}

/**
 * Why two answers are not equal as multisets of solutions with blank nodes up to a renaming,
 * or undefined when they are.
 */
export function solutionsDiffer(
  a: Solution[],
  b: Solution[],
  options: CompareOptions = {},
): string | undefined {
  if (a.length !== b.length) return `${a.length} rows against ${b.length}`;
  const names = namesOf(a, b);
  const fold = options.foldLanguage === true;
  const exact = options.blankLabels === true;
  const blank = exact ? (label: string) => `_:${label}` : () => "_:";
  const countsA = counted(a.map((row) => solutionKey(row, names, fold, blank)));
  const countsB = counted(b.map((row) => solutionKey(row, names, fold, blank)));
  for (const [key, n] of countsA) {
    const m = countsB.get(key) ?? 0;
    if (m !== n) return `row ${key}: ${n} times against ${m}`;
  }
  for (const [key, m] of countsB) {
    if (!countsA.has(key)) return `row ${key}: 0 times against ${m}`;
  }
  if (exact) return undefined;
  const hasBlank = (rows: Solution[]) =>
    rows.some((row) => [...row.values()].some((term) => term.termType === "BlankNode"));
  if (!hasBlank(a)) return undefined;
  return new Isomorphism(a, b, names, fold, options.budget ?? 2_000).why();
}

/** A row's cell: a term's key, or a blank node's index among both answers' blank nodes. */
type Cell = string | number;

class Isomorphism {
  readonly #rows: Cell[][][] = [[], []];
  /** Blank nodes 0 … sizes[0]-1 are the first answer's, the rest the second's. */
  readonly #sizes = [0, 0];
  #budget: number;

  constructor(a: Solution[], b: Solution[], names: string[], fold: boolean, budget: number) {
    this.#budget = budget;
    const indexes = [new Map<string, number>(), new Map<string, number>()];
    [a, b].forEach((rows, side) => {
      for (const row of rows) {
        this.#rows[side].push(names.map((name) => {
          const term = row.get(name);
          if (!term) return "";
          if (term.termType !== "BlankNode") return termKey(term, fold);
          let index = indexes[side].get(term.value);
          if (index === undefined) {
            index = indexes[side].size;
            indexes[side].set(term.value, index);
          }
          return index;
        }));
      }
    });
    this.#sizes = [indexes[0].size, indexes[1].size];
    // The second answer's blank nodes follow the first's.
    for (const row of this.#rows[1]) {
      row.forEach((cell, i) => {
        if (typeof cell === "number") row[i] = cell + this.#sizes[0];
      });
    }
  }

  why(): string | undefined {
    const [n, m] = this.#sizes;
    if (n !== m) return `${n} blank nodes against ${m}`;
    const found = this.#search(this.#refine(new Array(n + m).fill(0)));
    if (found === "undecided") return "undecided: no bijection of blank nodes found within budget";
    return found ? undefined : "the rows match only with blank nodes taken apart";
  }

  /** Colours split by the rows each blank node is in, until they split no further. */
  #refine(colours: number[]): number[] {
    let current = colours;
    let classes = new Set(current).size;
    while (true) {
      const signatures: string[][] = current.map(() => []);
      for (const rows of this.#rows) {
        for (const row of rows) {
          const text = row.map((cell) => typeof cell === "number" ? `#${current[cell]}` : cell)
            .join(" ");
          const blanks = new Set(row.filter((cell): cell is number => typeof cell === "number"));
          for (const node of blanks) {
            const where = row.flatMap((cell, i) => cell === node ? [i] : []).join(",");
            signatures[node].push(`${where}|${text}`);
          }
        }
      }
      const ids = new Map<string, number>();
      const next = current.map((colour, node) => {
        const key = `${colour}/${signatures[node].sort().join("\n")}`;
        let id = ids.get(key);
        if (id === undefined) {
          id = ids.size;
          ids.set(key, id);
        }
        return id;
      });
      const split = new Set(next).size;
      current = next;
      if (split === classes) return current;
      classes = split;
    }
  }

  /** True when a bijection within `colours` maps the rows; "undecided" past the budget. */
  #search(colours: number[]): boolean | "undecided" {
    const n = this.#sizes[0];
    const members = new Map<number, [number[], number[]]>();
    colours.forEach((colour, node) => {
      const entry = members.get(colour) ?? [[], []];
      entry[node < n ? 0 : 1].push(node);
      members.set(colour, entry);
    });
    let widest: [number[], number[]] | undefined;
    for (const entry of members.values()) {
      if (entry[0].length !== entry[1].length) return false;
      if (entry[0].length > 1 && (!widest || entry[0].length < widest[0].length)) widest = entry;
    }
    if (!widest) return this.#maps(colours);
    const [[node], candidates] = widest;
    const fresh = Math.max(...colours) + 1;
    let undecided = false;
    for (const candidate of candidates) {
      if (--this.#budget < 0) return "undecided";
      const tried = [...colours];
      tried[node] = fresh;
      tried[candidate] = fresh;
      const found = this.#search(this.#refine(tried));
      if (found === true) return true;
      if (found === "undecided") undecided = true;
    }
    return undecided ? "undecided" : false;
  }

  /** Whether the bijection the colours fix (one node per side each) maps the rows. */
  #maps(colours: number[]): boolean {
    const n = this.#sizes[0];
    const partner = new Map<number, number>();
    colours.forEach((colour, node) => {
      if (node >= n) partner.set(colour, node);
    });
    const key = (row: Cell[], map: (node: number) => number) =>
      row.map((cell) => typeof cell === "number" ? `#${map(cell)}` : cell).join(" ");
    const left = counted(this.#rows[1].map((row) => key(row, (node) => node)));
    for (const row of this.#rows[0]) {
      const k = key(row, (node) => partner.get(colours[node])!);
      const count = left.get(k) ?? 0;
      if (count === 0) return false;
      left.set(k, count - 1);
    }
    return true;
  }
}
