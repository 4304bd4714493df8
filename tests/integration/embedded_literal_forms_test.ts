/**
 * Literals exactly as stored, whichever path answers: oxigraph (the fallback) keeps typed
 * literals as values, so the store loads the ones it would alter as surrogates and rewrites
 * the query around them (src/store_embedded/literal_forms.ts). Each query here falls back (a
 * FILTER, ORDER BY or an aggregate the SQL does not compile) and is checked against what the
 * SPARQL 1.1 operators say of the stored terms: term identity for matching, `str`, `sameTerm`,
 * DISTINCT and `DATATYPE`; values for `=`, ORDER BY and SUM.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
// @ts-types="@types/n3"
import { DataFactory, type Quad } from "n3";
import { openLocalDatabase } from "../../src/local_database.ts";
import { LOCAL_DB_FILE } from "../../src/sqlite/local_db.ts";
import { EmbeddedTripleStore } from "../../src/store_embedded/embedded_triple_store.ts";
import { GROUP_COMMIT } from "../support/config_defaults.ts";

const { namedNode, literal, quad } = DataFactory;
const EX = "https://example.org/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const P = namedNode(`${EX}value`);

/** Stored forms: [lexical form, datatype local name]; one item each. */
const FORMS: [string, string][] = [
  ["01", "integer"],
  ["1", "integer"],
  ["5", "int"],
  ["-5", "negativeInteger"],
  ["1.0E0", "double"],
  ["1.50", "decimal"],
  ["1", "boolean"],
  ["2001-01-01+00:00", "date"],
  ["2001-01-01T10:00:00.000Z", "dateTime"],
];

function items(forms: [string, string][]): { uri: string; quads: Quad[] }[] {
  return forms.map(([value, type], i) => {
    const s = namedNode(`${EX}item/${i}`);
    return { uri: s.value, quads: [quad(s, P, literal(value, namedNode(XSD + type)))] };
  });
}

async function withStore(
  fn: (store: EmbeddedTripleStore) => Promise<void>,
  forms: [string, string][] = FORMS,
) {
  const dir = await Deno.makeTempDir({ prefix: "rcs-literal-forms-" });
  const db = openLocalDatabase(dir);
  const store = EmbeddedTripleStore.open(db, join(dir, LOCAL_DB_FILE), GROUP_COMMIT);
  try {
    for (const item of items(forms)) {
      await store.createItem({ collection: `${EX}c`, uri: item.uri, quads: item.quads, hash: "h" });
    }
    await fn(store);
  } finally {
    await store.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Each row's `variable` as `lexical^^local name` (or the IRI / plain value). */
async function column(store: EmbeddedTripleStore, query: string, variable = "o") {
  const result = await store.query(query, { limit: 1000, timeoutMs: 30_000 });
  assert.equal(result.kind, "bindings", query);
  if (result.kind !== "bindings") return [];
  return result.rows.map((row) => {
    const term = row.get(variable);
    if (!term) return "(unbound)";
    if (term.termType !== "Literal") return term.value;
    return `${term.value}^^${term.datatype.value.replace(XSD, "")}`;
  });
}

const STORED = FORMS.map(([value, type]) => `${value}^^${type}`).sort();

Deno.test("fallback: stored literals come back as written, as on the SQL path", async () => {
  await withStore(async (store) => {
    const compiled = await column(store, `SELECT ?o WHERE { ?s <${P.value}> ?o }`);
    assert.deepEqual(compiled.sort(), STORED);
    const fallback = await column(store, `SELECT ?o WHERE { ?s <${P.value}> ?o FILTER(true) }`);
    assert.deepEqual(fallback.sort(), STORED);
    const constructed = await store.query(
      `CONSTRUCT { ?s <${EX}copy> ?o } WHERE { ?s <${P.value}> ?o FILTER(isLiteral(?o)) }`,
      { limit: 1000, timeoutMs: 30_000 },
    );
    assert.equal(constructed.kind, "quads");
    if (constructed.kind === "quads") {
      const objects = constructed.quads.map((q) =>
        `${q.object.value}^^${
          (q.object as { datatype: { value: string } }).datatype.value.replace(XSD, "")
        }`
      );
      assert.deepEqual(objects.sort(), STORED);
    }
  });
});

Deno.test("fallback: term identity for str, sameTerm, DISTINCT, DATATYPE and matching", async () => {
  await withStore(async (store) => {
    const where = `?s <${P.value}> ?o`;
    assert.deepEqual(await column(store, `SELECT ?o WHERE { ${where} FILTER(str(?o) = "01") }`), [
      "01^^integer",
    ]);
    const distinct = await column(
      store,
      `SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { ${where} }`,
      "n",
    );
    assert.deepEqual(distinct, [`${FORMS.length}^^integer`]);
    const same = await column(
      store,
      `SELECT (COUNT(*) AS ?n) WHERE { ?a <${P.value}> ?x . ?b <${P.value}> ?y FILTER(sameTerm(?x, ?y)) }`,
      "n",
    );
    assert.deepEqual(same, [`${FORMS.length}^^integer`]);
    const types = await column(
      store,
      `SELECT ?t WHERE { ${where} BIND(DATATYPE(?o) AS ?t) FILTER(STRSTARTS(str(?o), "5")) }`,
      "t",
    );
    assert.deepEqual(types, [`${XSD}int`]);
    // A constant matches the term written so, not another form of its value.
    for (const [constant, expected] of [["01", "0"], ["1", "1"]]) {
      const subjects = await column(
        store,
        `SELECT ?s WHERE { ?s <${P.value}> "${constant}"^^<${XSD}integer> FILTER(true) }`,
        "s",
      );
      assert.deepEqual(subjects, [`${EX}item/${expected}`]);
    }
    const ask = await store.query(
      `ASK { FILTER(sameTerm("01"^^<${XSD}integer>, "1"^^<${XSD}integer>)) }`,
      { limit: 1, timeoutMs: 30_000 },
    );
    assert.deepEqual(ask, { kind: "boolean", value: false });
  });
});

Deno.test("fallback: values for =, ORDER BY and SUM", async () => {
  await withStore(async (store) => {
    const where = `?s <${P.value}> ?o`;
    const ones = await column(store, `SELECT ?o WHERE { ${where} FILTER(?o = 1) }`);
    assert.deepEqual(ones.sort(), ["01^^integer", "1.0E0^^double", "1^^integer"]);
    const ordered = await column(
      store,
      `SELECT ?o WHERE { ${where} FILTER(isNumeric(?o) && ?o > 0) } ORDER BY ?o STR(?o)`,
    );
    // 01, 1 and 1.0E0 are equal values: STR orders them.
    assert.deepEqual(ordered, [
      "01^^integer",
      "1^^integer",
      "1.0E0^^double",
      "1.50^^decimal",
      "5^^int",
    ]);
    const sum = await column(
      store,
      `SELECT (SUM(?o) AS ?n) WHERE { ${where} FILTER(DATATYPE(?o) IN (<${XSD}integer>, <${XSD}int>)) }`,
      "n",
    );
    assert.deepEqual(sum, ["7^^integer"]);
  });
});

Deno.test("fallback: MIN and MAX answer the stored literal, compared by value", async () => {
  await withStore(async (store) => {
    const where = `?s <${P.value}> ?o`;
    const extreme = (aggregate: string, filter: string) =>
      column(
        store,
        `PREFIX xsd: <${XSD}> SELECT (${aggregate}(?o) AS ?m) WHERE { ${where} FILTER(${filter}) }`,
        "m",
      );
    // 1.50 is the largest number; 5 (xsd:int) is larger but left out by the filter.
    assert.deepEqual(await extreme("MAX", "?o < 2"), ["1.50^^decimal"]);
    assert.deepEqual(await extreme("MIN", "?o > 1.2"), ["1.50^^decimal"]);
    assert.deepEqual(await extreme("MAX", "isNumeric(?o)"), ["5^^int"]);
    assert.deepEqual(await extreme("MIN", "isNumeric(?o)"), ["-5^^negativeInteger"]);
    assert.deepEqual(await extreme("MAX", "DATATYPE(?o) = xsd:date"), ["2001-01-01+00:00^^date"]);
    // Per group: each answer is one of its group's stored literals.
    const grouped = await store.query(
      `SELECT ?t (MAX(?o) AS ?m) WHERE { ${where} FILTER(isNumeric(?o)) }
       GROUP BY (DATATYPE(?o) AS ?t) ORDER BY ?t`,
      { limit: 1000, timeoutMs: 30_000 },
    );
    assert.equal(grouped.kind, "bindings");
    if (grouped.kind !== "bindings") return;
    const byType = Object.fromEntries(
      grouped.rows.map((row) => [
        row.get("t")!.value.replace(XSD, ""),
        row.get("m")!.value,
      ]),
    );
    assert.deepEqual(byType, {
      decimal: "1.50",
      double: "1.0E0",
      int: "5",
      // "01" and "1": equal values, both stored; the canonical one is answered
      integer: "1",
      negativeInteger: "-5",
    });
  });
});

Deno.test("fallback: dates with and without a timezone in XML Schema's partial order", async () => {
  const forms: [string, string][] = [
    ["2006-08-23", "date"],
    ["2006-08-23Z", "date"],
    ["2006-08-23+00:00", "date"],
    ["2001-01-01Z", "date"],
    ["2006-08-23T09:00:00", "dateTime"],
    ["2006-08-23T09:00:00+01:00", "dateTime"],
    ["2006-08-24T09:00:00Z", "dateTime"],
  ];
  await withStore(async (store) => {
    const where = `?s <${P.value}> ?o`;
    const matching = async (filter: string) =>
      (await column(store, `PREFIX xsd: <${XSD}> SELECT ?o WHERE { ${where} FILTER(${filter}) }`))
        .sort();
    // Within 14 hours of a value without a timezone: neither equal nor unequal (an error).
    assert.deepEqual(await matching(`?o != "2006-08-23"^^xsd:date`), [
      "2001-01-01Z^^date",
      "2006-08-23T09:00:00+01:00^^dateTime",
      "2006-08-23T09:00:00^^dateTime",
      "2006-08-24T09:00:00Z^^dateTime",
    ]);
    assert.deepEqual(await matching(`?o = "2006-08-23Z"^^xsd:date`), [
      "2006-08-23+00:00^^date",
      "2006-08-23Z^^date",
    ]);
    // Further apart than 14 hours: ordered as usual.
    assert.deepEqual(await matching(`?o < "2006-08-23"^^xsd:date`), ["2001-01-01Z^^date"]);
    assert.deepEqual(await matching(`?o > "2006-08-23T09:00:00"^^xsd:dateTime`), [
      "2006-08-24T09:00:00Z^^dateTime",
    ]);
  }, forms);
});
