/**
 * Parsing hostile RDF bodies: JSON-LD terms that no RDF syntax can write, JSON nested too
 * deeply for jsonld.js, a JSON string (which jsonld.js would load as a URL), and a remote
 * context reached only through a scoped context.
 */
import { strict as assert } from "node:assert";
import { parseRdf } from "../../src/rdf/parse.ts";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";

async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  try {
    await promise;
  } catch (thrown) {
    const error = asProblem(thrown);
    assert.ok(error instanceof ProblemError, String(thrown));
    return error;
  }
  throw new Error("parsed without a problem");
}

const S = "https://x.org/s";
const TITLE = "http://purl.org/dc/terms/title";

Deno.test("JSON-LD IRIs, datatypes and language tags are checked like other syntaxes'", async () => {
  const bodies = [
    { "@id": S, "https://x.org/p>q": "x" },
    { "@id": S, [TITLE]: { "@id": "https://x.org/a>};DROP_ALL;#" } },
    { "@id": S, "@type": "https://x.org/T{}" },
    { "@id": S, [TITLE]: { "@id": "https://x.org/%ZZ" } },
    { "@id": S, [TITLE]: { "@value": "x", "@type": "https://x.org/dt>.<https://x.org/s" } },
    { "@id": S, [TITLE]: { "@value": "x", "@language": "en>.}" } },
  ];
  for (const body of bodies) {
    const problem = await problemOf(parseRdf(JSON.stringify(body), "jsonld"));
    assert.equal(problem.slug, "rdf-syntax", JSON.stringify(body));
  }
  // The N-Triples datatype path too, through a \u escape.
  const nt = `<${S}> <${TITLE}> "x"^^<https://x.org/dt\\u003E> .`;
  assert.equal((await problemOf(parseRdf(nt, "ntriples"))).slug, "rdf-syntax");
});

Deno.test("JSON-LD nested 100,000 deep is a 400 that says so", async () => {
  const deep = `{"@id": "${S}", "${TITLE}": `.repeat(100_000) + `"x"` + "}".repeat(100_000);
  const problem = await problemOf(parseRdf(deep, "jsonld"));
  assert.equal(problem.slug, "invalid-jsonld");
  assert.match(problem.message, /nested too deeply/);
});

Deno.test("a JSON string is not taken for a document to load", async () => {
  const problem = await problemOf(parseRdf(`"http://127.0.0.1:1/doc.jsonld"`, "jsonld"));
  assert.equal(problem.slug, "invalid-jsonld");
  assert.equal((await problemOf(parseRdf("null", "jsonld"))).slug, "invalid-jsonld");
});

Deno.test("a remote context in a scoped context is refused as remote", async () => {
  const doc = {
    "@context": { "part": { "@id": "http://purl.org/dc/terms/hasPart", "@context": "http://h/c" } },
    "@id": S,
    "part": { "@id": "https://x.org/p" },
  };
  const problem = await problemOf(parseRdf(JSON.stringify(doc), "jsonld"));
  assert.equal(problem.slug, "remote-context-refused");
});
