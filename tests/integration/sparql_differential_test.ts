/**
 * The compiled SQL path held against a complete engine: thousands of generated queries inside
 * the compiled fragment (sparql_to_sql.ts: BGPs of 1–4 patterns with shared variables and
 * constants, `GRAPH` with a constant and with a variable, nested groups, DISTINCT, COUNT(*),
 * COUNT(?x), COUNT(DISTINCT ?x) with and without GROUP BY, LIMIT/OFFSET, SELECT *, ASK), some
 * with a collection scope, over generated items that share subjects, objects and whole
 * triples, with typed literals in canonical and non-canonical forms, language tags and blank
 * nodes. Each query is answered by the SQL path and by the fallback (oxigraph over the loaded
 * quads) on the same connection, and the answers must be equal: as multisets of rows (blank
 * nodes by a bijection, since oxigraph relabels them), the same columns (`/sparql` orders a
 * `SELECT *`'s columns afterwards, projection_order.ts, whichever path answered); with
 * LIMIT/OFFSET (the fragment has no ORDER BY) the same number of rows, all of them rows of the
 * unlimited answer.
 *
 * The seed is printed and named in every failure: `SPARQL_DIFF_SEED=<seed>` replays a run.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
// @ts-types="@types/n3"
import { DataFactory, type Quad, type Term } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { type Evaluation, SparqlEvaluator } from "../../src/store_embedded/sparql_evaluator.ts";
import { parseSparqlJsonResults } from "../../src/sparql_protocol/results_json.ts";
import { termFromId } from "n3";
import { GROUP_COMMIT } from "../support/config_defaults.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import { sameSolutions } from "../support/sparql_results.ts";

const { namedNode, literal, blankNode, quad } = DataFactory;
const EX = "https://example.org/diff/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const COLLECTIONS = [`${EX}c/a`, `${EX}c/b`, `${EX}c/c`];
const QUERIES = 3_000;
/** A generated join can still be large: one that runs this long is skipped (at most 1%). */
const QUERY_TIMEOUT_MS = 3_000;

/** mulberry32: a small seeded generator of our own, so that a failure replays. */
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

const SUBJECTS = Array.from({ length: 12 }, (_, i) => namedNode(`${EX}s${i}`));
const PREDICATES = Array.from({ length: 5 }, (_, i) => namedNode(`${EX}p${i}`));
const LITERALS: Term[] = [
  literal("one"),
  literal("one", "en"),
  literal("One", "en-GB"),
  literal("1", namedNode(`${XSD}integer`)),
  literal("01", namedNode(`${XSD}integer`)),
  literal("+5", namedNode(`${XSD}integer`)),
  literal("5", namedNode(`${XSD}int`)),
  literal("1.50", namedNode(`${XSD}decimal`)),
  literal("1.0E0", namedNode(`${XSD}double`)),
  literal("1", namedNode(`${XSD}boolean`)),
  literal("true", namedNode(`${XSD}boolean`)),
  literal("2024-01-01+00:00", namedNode(`${XSD}date`)),
  literal("2024-01-01", namedNode(`${XSD}date`)),
];

interface Item {
  collection: string;
  uri: string;
  quads: Quad[];
}

/** 45 items; a tenth of their triples come from a pool several items state. */
function generateItems(next: () => number): Item[] {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const object = (): Term => {
    const roll = next();
    return roll < 0.4
      ? pick(SUBJECTS)
      : roll < 0.9
      ? pick(LITERALS)
      : blankNode(`b${Math.floor(next() * 3)}`);
  };
  const shared = Array.from(
    { length: 8 },
    () =>
      quad(
        pick(SUBJECTS),
        pick(PREDICATES),
        (next() < 0.5 ? pick(SUBJECTS) : pick(LITERALS)) as Quad["object"],
      ),
  );
  return Array.from({ length: 45 }, (_, i) => {
    const uri = `${EX}item/${i}`;
    const quads: Quad[] = [];
    const count = 4 + Math.floor(next() * 10);
    for (let t = 0; t < count; t++) {
      if (next() < 0.1) {
        quads.push(pick(shared));
        continue;
      }
      const subject = next() < 0.15 ? blankNode(`b${Math.floor(next() * 3)}`) : pick(SUBJECTS);
      quads.push(quad(subject as Quad["subject"], pick(PREDICATES), object() as Quad["object"]));
    }
    // Items link to each other: GRAPH ?g joined with a subject finds them.
    quads.push(quad(namedNode(uri), PREDICATES[0], pick(SUBJECTS)));
    return { collection: COLLECTIONS[i % COLLECTIONS.length], uri, quads };
  });
}

/** A query inside the compiled fragment. */
function generateQuery(next: () => number, items: Item[]): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const variables = ["?a", "?b", "?c", "?d"];
  const written = (term: Term) =>
    term.termType === "NamedNode"
      ? `<${term.value}>`
      : term.termType === "Literal"
      ? (term as { language: string }).language
        ? `"${term.value}"@${(term as { language: string }).language}`
        : `"${term.value}"^^<${(term as { datatype: Term }).datatype.value}>`
      : `?${term.value}`;
  const position = (constants: Term[]) => {
    const roll = next();
    if (roll < 0.65) return pick(variables);
    if (roll < 0.95) return written(pick(constants));
    return `<${EX}absent>`;
  };
  // Each pattern after the first shares a variable with those before it (its subject or its
  // object): a join, never a cross product of unrelated patterns.
  const bound: string[] = [];
  const pattern = () => {
    let subject = position(SUBJECTS);
    let object = position([...SUBJECTS, ...LITERALS]);
    const predicate = next() < 0.7 ? written(pick(PREDICATES)) : pick(variables);
    if (bound.length > 0 && !bound.includes(subject) && !bound.includes(object)) {
      if (next() < 0.5) subject = pick(bound);
      else object = pick(bound);
    }
    for (const term of [subject, predicate, object]) {
      if (term.startsWith("?") && !bound.includes(term)) bound.push(term);
    }
    return `${subject} ${predicate} ${object} .`;
  };
  const count = 1 + Math.floor(next() * 4);
  let body = "";
  for (let i = 0; i < count; i++) {
    const roll = next();
    if (roll < 0.15) body += ` GRAPH <${pick(items).uri}> { ${pattern()} }`;
    else if (roll < 0.3) body += ` GRAPH ?g { ${pattern()} ${next() < 0.3 ? pattern() : ""} }`;
    else if (roll < 0.4) body += ` { ${pattern()} }`;
    else body += ` ${pattern()}`;
  }
  const used = [...new Set(body.match(/\?[a-z]\b/g) ?? [])];
  const some = () => used.length ? pick(used) : "?a";
  const form = next();
  let head: string;
  let tail = "";
  if (form < 0.1) return `ASK {${body} }`;
  if (form < 0.35) head = "SELECT *";
  else if (form < 0.55) head = `SELECT ${used.slice(0, 2).join(" ") || "?a"}`;
  else if (form < 0.7) head = `SELECT DISTINCT ${some()}`;
  else {
    const counted = pick(["*", some(), `DISTINCT ${some()}`]);
    const key = next() < 0.5 ? some() : undefined;
    head = `SELECT ${key ?? ""} (COUNT(${counted}) AS ?n)`;
    if (key) tail = ` GROUP BY ${key}`;
  }
  if (next() < 0.2) tail += ` LIMIT ${Math.floor(next() * 5)}`;
  if (next() < 0.1) tail += ` OFFSET ${Math.floor(next() * 3)}`;
  return `${head} WHERE {${body} }${tail}`;
}

type Answer = { kind: "boolean"; value: boolean } | {
  kind: "rows";
  variables: string[];
  rows: Map<string, Term>[];
};

function answerOf(evaluation: Evaluation): Answer {
  if (evaluation.kind === "boolean") return evaluation;
  if (evaluation.kind === "rows") {
    return {
      kind: "rows",
      variables: evaluation.variables,
      rows: evaluation.rows.map((row) => {
        const binding = new Map<string, Term>();
        row.forEach((text, i) => {
          if (text !== null) binding.set(evaluation.variables[i], termFromId(text));
        });
        return binding;
      }),
    };
  }
  const parsed = parseSparqlJsonResults(evaluation.text);
  if (parsed.kind === "boolean") return parsed;
  return { kind: "rows", variables: parsed.variables, rows: parsed.rows };
}

/** An answer, trimmed, for a failure message. */
function shown(answer: Answer): string {
  if (answer.kind === "boolean") return String(answer.value);
  const rows = answer.rows.slice(0, 5).map((row) =>
    [...row].map(([name, term]) => `${name}=${term.value}`).join(" ")
  );
  return `${answer.rows.length} rows: ${rows.join(" | ")}`;
}

Deno.test("SPARQL differential: the compiled SQL answers as the complete engine over the same quads", async () => {
  const seed = Number(Deno.env.get("SPARQL_DIFF_SEED") ?? Date.now() % 1_000_000);
  console.log(`SPARQL differential: seed ${seed} (SPARQL_DIFF_SEED=${seed} replays it)`);
  const next = random(seed);
  const dir = await Deno.makeTempDir({ prefix: "rcs-sparql-diff-" });
  const db = openLocalDatabase(dir);
  const store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  try {
    const items = generateItems(next);
    for (const item of items) await store.createItem({ ...item, hash: "h" });
    const evaluator = new SparqlEvaluator(db);
    const evaluate = async (sparql: string, path: "compiled" | "fallback", scope?: string[]) =>
      answerOf(
        await evaluator.evaluate({
          sparql,
          form: "bindings",
          unionDefaultGraph: true,
          path,
          scope,
          deadline: Date.now() + QUERY_TIMEOUT_MS,
          timeoutMs: QUERY_TIMEOUT_MS,
        }),
      );
    let compared = 0;
    let skipped = 0;
    for (let i = 0; i < QUERIES; i++) {
      const query = generateQuery(next, items);
      const scope = next() < 0.25 ? COLLECTIONS.filter(() => next() < 0.5) : undefined;
      let compiled: Answer;
      let complete: Answer;
      try {
        compiled = await evaluate(query, "compiled", scope);
        complete = await evaluate(query, "fallback", scope);
      } catch (error) {
        if (!isProblem(error, "query-timeout")) {
          throw new Error(`seed ${seed}, query ${i}: ${query}`, { cause: error });
        }
        skipped++;
        continue;
      }
      const where = `seed ${seed}, query ${i}${scope ? ` (scope ${scope.join(" ")})` : ""}: ` +
        `${query}\ncompiled: ${shown(compiled)}\nfallback: ${shown(complete)}`;
      compared++;
      if (compiled.kind === "boolean" || complete.kind === "boolean") {
        assert.deepEqual(compiled, complete, where);
        continue;
      }
      // The same columns; their order for SELECT * is set at the protocol (projection_order.ts).
      assert.deepEqual(
        [...compiled.variables].sort(),
        [...complete.variables].sort(),
        `columns differ, ${where}`,
      );
      const limited = /LIMIT|OFFSET/.test(query);
      if (!limited) {
        const why = sameSolutions(complete.rows, compiled.rows);
        assert.equal(why, undefined, `${why}, ${where}`);
        continue;
      }
      // Without ORDER BY a limit picks any rows: as many, each a row of the whole answer.
      assert.equal(compiled.rows.length, complete.rows.length, `row counts differ, ${where}`);
      const whole = query.replace(/ (LIMIT|OFFSET) \d+/g, "");
      const all = await evaluate(whole, "compiled", scope);
      if (all.kind === "rows") {
        const why = sameSolutions(compiled.rows, all.rows, { subset: true });
        assert.equal(why, undefined, `${why}, ${where}`);
      }
    }
    console.log(`SPARQL differential: ${compared} queries, 0 differences, ${skipped} skipped`);
    assert.ok(skipped <= QUERIES / 100, `${skipped} queries ran past ${QUERY_TIMEOUT_MS} ms`);
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
