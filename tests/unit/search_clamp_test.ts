import { strict as assert } from "node:assert";
import {
  clampQueryBody,
  clampResponseBuckets,
  clampWindow,
  type SearchLimits,
  writeClampWarning,
} from "../../src/search/clamp.ts";

const LIMITS: SearchLimits = { maxResultsLimit: 100, maxWindow: 250, trackTotalHits: 10_000 };

function recorder() {
  const entries: Record<string, unknown>[] = [];
  return { entries, warn: (entry: Record<string, unknown>) => entries.push(entry) };
}

Deno.test("clampWindow applies docs/api.md's formulas", () => {
  const cases: [from: number, size: number, applied: [number, number]][] = [
    [0, 10, [0, 10]],
    [0, 100, [0, 100]],
    [0, 101, [0, 100]],
    [200, 100, [200, 50]],
    [250, 10, [250, 0]],
    [400, 10, [250, 0]],
    [150, 100, [150, 100]],
    [151, 100, [151, 99]],
  ];
  for (const [from, size, [appliedFrom, appliedSize]] of cases) {
    const { warn } = recorder();
    const result = clampWindow({ from, size }, LIMITS, warn);
    // The table agrees with the formulas themselves.
    assert.equal(appliedFrom, Math.min(from, LIMITS.maxWindow));
    assert.equal(
      appliedSize,
      Math.min(size, LIMITS.maxResultsLimit, LIMITS.maxWindow - appliedFrom),
    );
    assert.deepEqual(result.applied, { from: appliedFrom, size: appliedSize }, `${from}+${size}`);
    assert.deepEqual(result.requested, { from, size });
    assert.equal(result.clamped, from !== appliedFrom || size !== appliedSize);
  }
});

Deno.test("clampWindow logs exactly one warning per clamp and none otherwise", () => {
  const { entries, warn } = recorder();
  clampWindow({ from: 5, size: 20 }, LIMITS, warn);
  assert.equal(entries.length, 0);
  clampWindow({ from: 240, size: 20 }, LIMITS, warn);
  assert.deepEqual(entries, [{
    msg: "search query clamped",
    requested: { from: 240, size: 20 },
    applied: { from: 240, size: 10 },
  }]);
});

Deno.test("clampWindow replaces invalid values by the defaults instead of refusing", () => {
  const { entries, warn } = recorder();
  assert.deepEqual(clampWindow({}, LIMITS, warn).applied, { from: 0, size: 10 });
  assert.deepEqual(clampWindow({ from: -3, size: -1 }, LIMITS, warn).applied, {
    from: 0,
    size: 10,
  });
  assert.deepEqual(clampWindow({ from: 2.5, size: "x" }, LIMITS, warn).applied, {
    from: 0,
    size: 10,
  });
  assert.deepEqual(clampWindow({ from: "4", size: "7" }, LIMITS, warn).applied, {
    from: 4,
    size: 7,
  });
  assert.equal(entries.length, 0);
  const tiny = clampWindow({}, { maxResultsLimit: 3, maxWindow: 100 }, warn);
  assert.deepEqual(tiny, {
    requested: { from: 0, size: 10 },
    applied: { from: 0, size: 3 },
    clamped: true,
  });
});

Deno.test("the default warning is one JSON line on stderr", () => {
  const original = console.error;
  const lines: string[] = [];
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    clampWindow({ from: 0, size: 1000 }, LIMITS);
    writeClampWarning({ msg: "direct" });
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 2);
  const entry = JSON.parse(lines[0]);
  assert.equal(entry.level, "warn");
  assert.equal(entry.msg, "search query clamped");
  assert.deepEqual(entry.requested, { from: 0, size: 1000 });
  assert.deepEqual(entry.applied, { from: 0, size: 100 });
  assert.ok(!Number.isNaN(Date.parse(entry.time)));
  assert.equal(JSON.parse(lines[1]).msg, "direct");
});

Deno.test("clampQueryBody clamps the window and caps nested aggregation sizes", () => {
  const { entries, warn } = recorder();
  const body = {
    from: 240,
    size: 40,
    query: { match_all: {} },
    aggs: {
      by_type: {
        terms: { field: "types", size: 5000, shard_size: 9000 },
        aggregations: {
          by_year: {
            composite: { size: 1000, sources: [{ year: { terms: { field: "year" } } }] },
            aggs: {
              latest: { top_hits: { from: 500, size: 300 } },
              rare: { significant_terms: { field: "genre", size: "700" } },
              small: { terms: { field: "genre", size: 7 } },
            },
          },
        },
      },
    },
  };
  const original = structuredClone(body);
  const result = clampQueryBody(body, LIMITS, warn);
  assert.deepEqual(body, original, "the input body is not modified");
  assert.deepEqual(result.changes, [
    { path: "size", requested: 40, applied: 10 },
    { path: "aggs.by_type.terms.size", requested: 5000, applied: 100 },
    { path: "aggs.by_type.terms.shard_size", requested: 9000, applied: 100 },
    { path: "aggs.by_type.aggregations.by_year.composite.size", requested: 1000, applied: 100 },
    {
      path: "aggs.by_type.aggregations.by_year.aggs.latest.top_hits.size",
      requested: 300,
      applied: 100,
    },
    {
      path: "aggs.by_type.aggregations.by_year.aggs.latest.top_hits.from",
      requested: 500,
      applied: 100,
    },
    {
      path: "aggs.by_type.aggregations.by_year.aggs.rare.significant_terms.size",
      requested: "700",
      applied: 100,
    },
  ]);
  const clamped = result.body as typeof body;
  assert.equal(clamped.from, 240);
  assert.equal(clamped.size, 10);
  const byYear = clamped.aggs.by_type.aggregations.by_year;
  assert.equal(byYear.composite.size, 100);
  assert.deepEqual(byYear.aggs.latest.top_hits, { from: 100, size: 100 });
  assert.equal(byYear.aggs.small.terms.size, 7);
  assert.equal(entries.length, 1, "one warning for the whole query");
  assert.deepEqual(entries[0].requested, { from: 240, size: 40 });
  assert.deepEqual(entries[0].applied, { from: 240, size: 10 });
  assert.equal((entries[0].changes as unknown[]).length, 7);
});

Deno.test("clampQueryBody caps inner_hits anywhere, collapse, suggesters and rescore", () => {
  const { entries, warn } = recorder();
  const body = {
    query: {
      bool: {
        should: [
          { nested: { path: "author", query: { match_all: {} }, inner_hits: { size: 400 } } },
          {
            has_child: { type: "x", query: { match_all: {} }, inner_hits: { from: 200, size: 5 } },
          },
        ],
      },
    },
    collapse: { field: "genre", inner_hits: [{ name: "a", size: 1000 }, { name: "b", size: 3 }] },
    suggest: { spelling: { text: "fxo", term: { field: "text", size: 500 } } },
    rescore: { window_size: 5000, query: { rescore_query: { match_all: {} } } },
  };
  const { body: clamped, changes } = clampQueryBody(body, LIMITS, warn);
  assert.deepEqual(changes.map((change) => change.path).sort(), [
    "collapse.inner_hits[0].size",
    "query.bool.should[0].nested.inner_hits.size",
    "query.bool.should[1].has_child.inner_hits.from",
    "rescore.window_size",
    "suggest.spelling.term.size",
  ]);
  const should = (clamped.query as typeof body.query).bool.should;
  assert.equal(should[0].nested?.inner_hits.size, 100);
  assert.deepEqual(should[1].has_child?.inner_hits, { from: 100, size: 5 });
  assert.deepEqual((clamped.collapse as typeof body.collapse).inner_hits.map((hit) => hit.size), [
    100,
    3,
  ]);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].requested, undefined, "the top-level window was not clamped");
});

Deno.test("clampQueryBody leaves fields named like size parameters alone", () => {
  const { entries, warn } = recorder();
  const body = {
    query: {
      bool: {
        filter: [
          { term: { size: 50000 } },
          { range: { from: { gte: 9999 } } },
          { match: { inner_hits: "text" } },
        ],
      },
    },
    aggs: { sizes: { histogram: { field: "size", interval: 50000 } } },
  };
  const result = clampQueryBody(body, LIMITS, warn);
  assert.deepEqual(result.body, body);
  assert.deepEqual(result.changes, []);
  assert.equal(entries.length, 0);
});

Deno.test("clampQueryBody sets an absent size when the default exceeds the limits", () => {
  const { entries, warn } = recorder();
  const small = { maxResultsLimit: 4, maxWindow: 100 };
  const result = clampQueryBody({ query: { match_all: {} } }, small, warn);
  assert.equal(result.body.size, 4);
  assert.equal("from" in result.body, false);
  assert.deepEqual(result.changes, [{ path: "size", requested: null, applied: 4 }]);
  assert.equal(entries.length, 1);
  const untouched = clampQueryBody({ query: { match_all: {} } }, LIMITS, warn);
  assert.equal("size" in untouched.body, false);
  assert.equal(entries.length, 1);
  const invalid = clampQueryBody({ from: -1, size: 0 }, LIMITS, warn);
  assert.deepEqual(invalid.body, { from: 0, size: 0 });
  assert.deepEqual(invalid.changes, [{ path: "from", requested: -1, applied: 0 }]);
});

Deno.test("clampResponseBuckets caps bucket lists and keyed buckets at any depth, with one warning", () => {
  const buckets = (n: number) => Array.from({ length: n }, (_, key) => ({ key, doc_count: 1 }));
  const response = {
    hits: { total: { value: 3 } },
    aggregations: {
      by_day: { buckets: buckets(150) },
      small: { buckets: buckets(5) },
      keyed: { buckets: Object.fromEntries(buckets(120).map((b) => [`k${b.key}`, b])) },
      outer: { buckets: [{ key: "a", inner: { buckets: buckets(101) } }] },
    },
  };
  const before = structuredClone(response);
  const { entries, warn } = recorder();
  const clamped = clampResponseBuckets(response, LIMITS, warn);
  const aggregations = clamped.response.aggregations as typeof response.aggregations;
  assert.equal(aggregations.by_day.buckets.length, 100);
  assert.deepEqual(aggregations.by_day.buckets[99], { key: 99, doc_count: 1 });
  assert.equal(aggregations.small.buckets.length, 5);
  assert.equal(Object.keys(aggregations.keyed.buckets).length, 100);
  assert.equal(aggregations.outer.buckets[0].inner.buckets.length, 100);
  assert.deepEqual(clamped.changes, [
    { path: "aggregations.by_day.buckets", requested: 150, applied: 100 },
    { path: "aggregations.keyed.buckets", requested: 120, applied: 100 },
    { path: "aggregations.outer.buckets[0].inner.buckets", requested: 101, applied: 100 },
  ]);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].msg, "search response buckets clamped");
  assert.deepEqual(response, before, "the engine's response is not modified");

  const untouched = clampResponseBuckets(
    { aggregations: { a: { buckets: buckets(3) } } },
    LIMITS,
    warn,
  );
  assert.deepEqual(untouched.changes, []);
  assert.equal(entries.length, 1, "no warning without a change");
});
