/**
 * Query parameters through their zod schemas: the values handlers get, and the precise 400
 * problems (type, detail, `errors[].path`) that docs/api.md asks for when a parameter is wrong.
 */
import { strict as assert } from "node:assert";
import { z } from "zod";
import { parseQuery } from "../../src/http/read_query.ts";
import {
  booleanParam,
  integerParam,
  iriList,
  optionalIri,
  optionalText,
  requiredIri,
  requiredText,
  textList,
} from "../../src/http/query_schema.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";

const QUERY = z.object({
  collection: requiredIri("collection"),
  item: optionalIri("item"),
  uri: iriList("uris", { min: 1 }),
  extra: iriList("optional uris"),
  clear: booleanParam("clear"),
  from: integerParam("from", 0),
  size: integerParam("size", undefined),
  q: optionalText("q"),
  filter: textList("filters"),
});

const C = "https://data.example.org/collection/documents";
const VALID = { collection: [C], uri: ["https://x.org/a,b"] };

/** The problem `given` raises, asserted to be a 400 ProblemError. */
function problemOf(given: Record<string, string[]>, schema: z.ZodObject = QUERY): ProblemError {
  try {
    parseQuery(given, schema);
  } catch (error) {
    const problem = asProblem(error);
    assert.ok(problem instanceof ProblemError, String(error));
    assert.equal(problem.status, 400);
    return problem;
  }
  assert.fail(`no problem for ${JSON.stringify(given)}`);
}

Deno.test("valid parameters come back typed, with their defaults", () => {
  const query = parseQuery({ ...VALID, unknown: ["ignored"] }, QUERY);
  assert.deepEqual(query, {
    collection: C,
    uri: ["https://x.org/a,b"],
    extra: [],
    clear: false,
    from: 0,
    filter: [],
  });
  const full = parseQuery({
    ...VALID,
    item: ["urn:x:1"],
    uri: ["https://x.org/a", "https://x.org/b"],
    clear: ["true"],
    from: ["20"],
    size: ["5"],
    q: [""],
    filter: ["a:b", "c:d:e"],
  }, QUERY);
  assert.equal(full.item, "urn:x:1");
  assert.deepEqual(full.uri, ["https://x.org/a", "https://x.org/b"]);
  assert.equal(full.clear, true);
  assert.equal(full.from, 20);
  assert.equal(full.size, 5);
  assert.equal(full.q, "");
  assert.deepEqual(full.filter, ["a:b", "c:d:e"]);
  assert.equal(parseQuery({ ...VALID, clear: ["false"] }, QUERY).clear, false);
  // An empty integer is the fallback, as it always was.
  assert.equal(parseQuery({ ...VALID, from: [""], size: [""] }, QUERY).from, 0);
  assert.equal(parseQuery({ ...VALID, size: [""] }, QUERY).size, undefined);
});

Deno.test("a missing or empty required parameter is missing-parameter, naming it", () => {
  const cases: [Record<string, string[]>, string][] = [
    [{ uri: VALID.uri }, "collection"],
    [{ collection: [""], uri: VALID.uri }, "collection"],
    [{ collection: [C] }, "uri"],
    [{ collection: [C], uri: [] }, "uri"],
  ];
  for (const [given, name] of cases) {
    const problem = problemOf(given);
    assert.equal(problem.slug, "missing-parameter");
    assert.equal(problem.message, `The query parameter '${name}' is required.`);
    assert.deepEqual(problem.errors, [{ path: name, message: "required" }]);
  }
  // Given but empty, an optional IRI is still refused rather than taken as absent.
  assert.equal(problemOf({ ...VALID, item: [""] }).slug, "missing-parameter");
  const text = z.object({ endpoint: requiredText("endpoint") });
  assert.equal(problemOf({}, text).slug, "missing-parameter");
  assert.equal(problemOf({ endpoint: [""] }, text).slug, "missing-parameter");
});

Deno.test("an IRI that is not absolute is invalid-iri, naming the parameter", () => {
  const cases: [Record<string, string[]>, string, string][] = [
    [{ ...VALID, collection: ["not an iri"] }, "collection", "not an iri"],
    [{ ...VALID, item: ["http://x/<y>"] }, "item", "http://x/<y>"],
    [{ ...VALID, uri: ["https://x.org/a", "https://x.org/a}"] }, "uri", "https://x.org/a}"],
    [{ ...VALID, extra: ["relative/path"] }, "extra", "relative/path"],
  ];
  for (const [given, name, value] of cases) {
    const problem = problemOf(given);
    assert.equal(problem.slug, "invalid-iri", name);
    assert.equal(
      problem.message,
      `The parameter '${name}' must be an absolute IRI; got ${JSON.stringify(value)}.`,
    );
    assert.equal(problem.errors?.[0].path, name);
  }
  // The error entry says what is wrong, also for values the short rule would let through.
  const reasons: [string, RegExp][] = [
    ["not an iri", /does not start with a scheme/],
    ["https://x.org/a b", /a space at position 15/],
    ["https://x.org/\u0007", /control character U\+0007/],
    ["https://x.org/a}", /'}' at position 15/],
    ["https://x.org/%zz", /'%' at position 14 is not followed by two hexadecimal digits/],
    ["https://x.org/a#b#c", /second '#' at position 17/],
    ["https://x.org/[a]", /IPv6 address/],
    ["https://x.org:port/", /RFC 3987's IRI grammar/],
  ];
  for (const [value, reason] of reasons) {
    const problem = problemOf({ ...VALID, collection: [value] });
    assert.equal(problem.slug, "invalid-iri", value);
    assert.match(problem.errors?.[0].message ?? "", reason, value);
  }
  // Long values are cut in the detail, not in the check.
  const long = `https://x.org/${"a".repeat(300)} b`;
  assert.match(problemOf({ ...VALID, collection: [long] }).message, /a…"\.$/);
});

Deno.test("a single-valued parameter given twice is invalid-parameter", () => {
  for (const name of ["collection", "clear", "from", "q"]) {
    const value = name === "collection" ? C : name === "clear" ? "true" : "1";
    const problem = problemOf({ ...VALID, [name]: [value, value] });
    assert.equal(problem.slug, "invalid-parameter", name);
    assert.equal(problem.title, "Invalid parameter");
    assert.equal(problem.message, `The parameter '${name}' takes one value; it was given 2 times.`);
    assert.deepEqual(problem.errors, [{ path: name, message: "one value expected" }]);
  }
});

Deno.test("booleans are exactly true or false; integers are digits", () => {
  for (const value of ["yes", "TRUE", "1", ""]) {
    const problem = problemOf({ ...VALID, clear: [value] });
    assert.equal(problem.slug, "invalid-boolean", value);
    assert.equal(
      problem.message,
      `The parameter 'clear' must be 'true' or 'false'; got ${JSON.stringify(value)}.`,
    );
    assert.deepEqual(problem.errors, [{ path: "clear", message: "must be true or false" }]);
  }
  for (const value of ["-1", "1.5", "ten", "1e3", " 1", "1234567890123456"]) {
    const problem = problemOf({ ...VALID, size: [value] });
    assert.equal(problem.slug, "invalid-parameter", value);
    assert.equal(problem.title, "Invalid parameter");
    assert.equal(problem.errors?.[0].path, "size");
  }
});

Deno.test("the first parameter in the schema's order is the one reported", () => {
  const problem = problemOf({ collection: ["bad"], clear: ["maybe"] });
  assert.equal(problem.errors?.[0].path, "collection");
});
