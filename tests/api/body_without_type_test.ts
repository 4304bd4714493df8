/**
 * A body sent without an RDF Content-Type (none at all, or curl's default
 * `application/x-www-form-urlencoded` for `-d`) is read as JSON-LD; when it is not JSON the
 * problem says so, and lists the types that would have been read.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, storeBackends, storeTest } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const TURTLE = '<https://data.example.org/id/t1> <http://purl.org/dc/terms/title> "T" .';
const PATH = `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`;

for (const backend of storeBackends().slice(0, 1)) {
  storeTest(
    "body type",
    backend,
    "a Turtle body without an RDF type is explained",
    async (service) => {
      const forms: Record<string, string>[] = [{}, {
        "Content-Type": "application/x-www-form-urlencoded",
      }];
      for (const headers of forms) {
        // A byte body: fetch adds no Content-Type of its own.
        const response = await service.fetch(PATH, {
          method: "PUT",
          headers,
          body: new TextEncoder().encode(TURTLE),
        });
        const problem = await expectProblem(response, 400, "rdf-syntax");
        const detail = String(problem.detail);
        assert.match(detail, /so the body was read as JSON-LD/, detail);
        assert.match(
          detail,
          "Content-Type" in headers
            ? /x-www-form-urlencoded \(curl's default for -d\)/
            : /no Content-Type/,
        );
        for (const type of ["application/ld+json", "text/turtle", "application/n-triples"]) {
          assert.ok(detail.includes(type), `${type} listed: ${detail}`);
        }
      }
      // The same body with its type is created; JSON without a type still works.
      const typed = await service.fetch(PATH, {
        method: "PUT",
        headers: { "Content-Type": "text/turtle" },
        body: TURTLE,
      });
      assert.equal(typed.status, 201, await typed.clone().text());
      const untyped = await service.fetch(PATH, {
        method: "PUT",
        body: new TextEncoder().encode(JSON.stringify({
          "@id": "https://data.example.org/id/t2",
          "http://purl.org/dc/terms/title": "T2",
        })),
      });
      assert.equal(untyped.status, 201, await untyped.clone().text());
    },
  );
}
