/** The one wording of 415 `unsupported-media-type` for bodies a route does not take. */
import { strict as assert } from "node:assert";
import { contractBodyTypes, unsupportedMediaType } from "../../src/http/unsupported_media_type.ts";
import { sparqlQueryPost } from "../../src/routes/contracts/sparql.ts";
import { isProblem } from "../../src/errors/domain_error.ts";

Deno.test("a refused body's problem names what came and the one type the route takes", () => {
  const problem = unsupportedMediaType({ given: "text/plain", accepted: ["application/json"] });
  assert.ok(isProblem(problem, "unsupported-media-type"));
  assert.equal(
    problem.message,
    'Content-Type "text/plain" is not accepted here; use application/json.',
  );
  assert.deepEqual(problem.errors, [{ path: "Content-Type", message: "unsupported" }]);
});

Deno.test("several accepted types are listed in order; no Content-Type and a hint are said", () => {
  const problem = unsupportedMediaType({
    given: undefined,
    accepted: ["text/turtle", "application/ld+json"],
    hint: "Or upload a file.",
  });
  assert.equal(
    problem.message,
    "Content-Type (none) is not accepted here; use one of: text/turtle, application/ld+json. " +
      "Or upload a file.",
  );
  assert.match(unsupportedMediaType({ given: "", accepted: ["a/b"] }).message, /\(none\)/);
});

Deno.test("an uploaded file's refused type names the file and points at it", () => {
  const problem = unsupportedMediaType({
    given: "text/csv",
    file: "data.csv",
    accepted: ["text/turtle", "application/ld+json"],
  });
  assert.equal(
    problem.message,
    'Content-Type "text/csv" of the file "data.csv" is not accepted here; use one of: ' +
      "text/turtle, application/ld+json.",
  );
  assert.deepEqual(problem.errors, [{ path: "file", message: "unsupported" }]);
});

Deno.test("the types a route takes are its contract's, in its order", () => {
  assert.deepEqual(contractBodyTypes(sparqlQueryPost), [
    "application/sparql-query",
    "application/x-www-form-urlencoded",
  ]);
  assert.deepEqual(contractBodyTypes({}), []);
});
