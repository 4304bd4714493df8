/**
 * parseRdf: errors users see (line numbers, refused contexts, 415 for unknown JSON),
 * RDF/XML entity attacks, JSON-LD forms, and the details of each parser.
 */
import { strict as assert } from "node:assert";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import { canonicalNQuads } from "../support/rdf_fixtures.ts";

/** The ProblemError a promise rejects with (fails the test if it resolves). */
async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  try {
    await promise;
  } catch (error) {
    const problem = asProblem(error);
    if (problem instanceof ProblemError) return problem;
    throw error;
  }
  assert.fail("expected a ProblemError");
}

async function canonicalOf(text: string, format: Parameters<typeof parseRdf>[1]) {
  return await canonicalNQuads((await parseRdf(text, format)).quads);
}

// --- Turtle family -------------------------------------------------------------------

Deno.test("bad Turtle is a 400 rdf-syntax naming the line and column", async () => {
  const turtle = `@prefix ex: <http://example.org/> .
ex:a ex:b ex:c .
ex:d ex:e ex:f ex:g .`;
  const problem = await problemOf(parseRdf(turtle, "turtle"));
  assert.equal(problem.status, 400);
  assert.equal(problem.slug, "rdf-syntax");
  assert.match(problem.message, /Turtle body could not be parsed at line 3, column 16/);
  assert.equal(problem.errors?.[0].path, "3:16");
});

Deno.test("bad N-Triples names its line; an unterminated string names the line only", async () => {
  const nt =
    `<http://a.example/s> <http://a.example/p> "x" .\n<http://a.example/s> <http://a.example/p> x .`;
  const problem = await problemOf(parseRdf(nt, "ntriples"));
  assert.match(problem.message, /N-Triples .* line 2/);
  const unterminated = await problemOf(
    parseRdf(`<http://a.example/s>\n<http://a.example/p>\n"open .`, "turtle"),
  );
  assert.match(unterminated.message, /line 3/);
});

Deno.test("N-Triples parsing is strict: Turtle abbreviations are refused", async () => {
  const problem = await problemOf(
    parseRdf(`@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .`, "ntriples"),
  );
  assert.equal(problem.status, 400);
});

Deno.test("N3 formulas and variables, and RDF 1.2 triple terms, are refused", async () => {
  const formula = await problemOf(
    parseRdf(`@prefix ex: <http://example.org/> .\nex:a ex:says { ex:b ex:c ex:d } .`, "n3"),
  );
  assert.match(formula.message, /formulas/);
  const variable = await problemOf(
    parseRdf(`@prefix ex: <http://example.org/> .\n?x ex:b ex:c .`, "n3"),
  );
  assert.match(variable.message, /variables/);
  const tripleTerm = await problemOf(parseRdf(
    `@prefix ex: <http://example.org/> .\n<< ex:a ex:b ex:c >> ex:says ex:d .`,
    "turtle",
  ));
  assert.match(tripleTerm.message, /triple terms/);
});

Deno.test("relative IRIs need a base IRI, in every syntax: 400 relative-iri naming it", async () => {
  const base = "http://example.org/base/doc";
  const bodies = [
    { format: "turtle", text: `<relative> <http://example.org/p> "x" .`, iri: "relative" },
    { format: "n3", text: `<http://example.org/s> <http://example.org/p> <#o> .`, iri: "#o" },
    {
      format: "rdfxml",
      iri: "#frag",
      text: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:ex="http://example.org/"><rdf:Description rdf:ID="frag"><ex:p>x</ex:p>
  </rdf:Description></rdf:RDF>`,
    },
    { format: "jsonld", text: `{"@id": "relative", "http://example.org/p": "x"}`, iri: "relative" },
    {
      format: "jsonld",
      text: `{"@id": "http://example.org/s", "http://example.org/p": {"@id": "../o"}}`,
      iri: "../o",
    },
  ] as const;
  for (const { format, text, iri } of bodies) {
    const problem = await problemOf(parseRdf(text, format));
    assert.equal(problem.status, 400, format);
    assert.equal(problem.slug, "relative-iri", format);
    assert.ok(problem.message.includes(`<${iri}>`), problem.message);
    assert.match(problem.message, /`base` query parameter/);
    assert.deepEqual(problem.extensions, { iri });
    const { quads } = await parseRdf(text, format, { baseIri: base });
    assert.ok(quads.length > 0, format);
    for (const quad of quads) {
      for (const term of [quad.subject, quad.object]) {
        if (term.termType === "NamedNode") assert.match(term.value, /^http:\/\/example.org\//);
      }
    }
  }
  // The document's own base applies over the parameter.
  const { quads } = await parseRdf(
    `@base <http://other.example/dir/> . <s> <http://example.org/p> <../o> .`,
    "turtle",
    { baseIri: base },
  );
  assert.equal(quads[0].subject.value, "http://other.example/dir/s");
  assert.equal(quads[0].object.value, "http://other.example/o");
});

Deno.test("rdf:XMLLiteral values are stored in exclusive canonical XML", async () => {
  const rdfxml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:eg="http://example.org/"><rdf:Description rdf:about="http://example.org/a">
  <eg:prop rdf:parseType="Literal"><br /><eg:b z="2" a='1'>x &amp; y</eg:b></eg:prop>
  </rdf:Description></rdf:RDF>`;
  const { quads } = await parseRdf(rdfxml, "rdfxml");
  assert.equal(
    quads[0].object.value,
    '<br></br><eg:b xmlns:eg="http://example.org/" a="1" z="2">x &amp; y</eg:b>',
  );
  const xmlLiteral = "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral";
  const turtle = await parseRdf(
    `<http://example.org/a> <http://example.org/p> "<a  b='1'/>"^^<${xmlLiteral}> .
<http://example.org/a> <http://example.org/q> "<a>"^^<${xmlLiteral}> .`,
    "turtle",
  );
  assert.equal(turtle.quads[0].object.value, '<a b="1"></a>');
  assert.equal(turtle.quads[1].object.value, "<a>", "not well-formed: kept as sent");
});

Deno.test("N-Quads and TriG keep named graphs; duplicates are kept for the caller", async () => {
  const nq = `<http://a.example/s> <http://a.example/p> "x" <http://a.example/g> .
<http://a.example/s> <http://a.example/p> "x" <http://a.example/g> .`;
  const { quads } = await parseRdf(nq, "nquads");
  assert.equal(quads.length, 2);
  assert.equal(quads[0].graph.value, "http://a.example/g");
  const trig = await parseRdf(
    `<http://a.example/g> { <http://a.example/s> <http://a.example/p> 1 }`,
    "trig",
  );
  assert.equal(trig.quads[0].graph.value, "http://a.example/g");
});

Deno.test("a byte order mark is ignored", async () => {
  const { quads } = await parseRdf(
    `\ufeff<http://a.example/s> <http://a.example/p> "x" .`,
    "turtle",
  );
  assert.equal(quads.length, 1);
});

// --- JSON ------------------------------------------------------------------------------

Deno.test("malformed JSON is a 400 with line and column, whatever V8's message", async () => {
  const missingColon = await problemOf(parseRdf(`{\n  "a" 1\n}`, "jsonld"));
  assert.equal(missingColon.slug, "rdf-syntax");
  assert.equal(missingColon.errors?.[0].path, "2:7");
  // V8 reports "Unexpected token" without a position: the service finds it itself.
  const unexpected = await problemOf(parseRdf(`{"a": 1,\n "b": }`, "rdfjson"));
  assert.equal(unexpected.errors?.[0].path, "2:7");
  const truncated = await problemOf(parseRdf(`[{"@id": "http://a.example/"`, "json"));
  assert.equal(truncated.status, 400);
});

Deno.test("JSON that is neither JSON-LD nor RDF/JSON is a 415", async () => {
  for (const body of [`{"name": "Alice"}`, `42`, `"text"`, `null`, `[1, 2]`]) {
    const problem = await problemOf(parseRdf(body, "json"));
    assert.equal(problem.status, 415, body);
    assert.equal(problem.slug, "unsupported-media-type");
  }
});

Deno.test("JSON flavour detection by shape", async () => {
  const rdfJson =
    `{"http://a.example/s": {"http://a.example/p": [{"type": "literal", "value": "x"}]}}`;
  assert.equal((await parseRdf(rdfJson, "json")).format, "rdfjson");
  const expandedWithoutId = `{"http://a.example/p": [{"@value": "x"}]}`;
  const detected = await parseRdf(expandedWithoutId, "json");
  assert.equal(detected.format, "jsonld");
  assert.equal(detected.quads[0].subject.termType, "BlankNode");
  const compacted =
    `{"@context": {"p": "http://a.example/p"}, "@id": "http://a.example/s", "p": "x"}`;
  assert.equal((await parseRdf(compacted, "json")).format, "jsonld");
  assert.equal((await parseRdf(`[]`, "json")).format, "jsonld");
  assert.equal(
    await canonicalOf(rdfJson, "json"),
    await canonicalOf(`{"@id": "http://a.example/s", "http://a.example/p": "x"}`, "json"),
  );
});

// --- JSON-LD -----------------------------------------------------------------------------

/** A loopback server that counts requests: proof that nothing is fetched. */
function countingServer() {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return Response.json({ "@context": { name: "http://schema.org/name" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/context.jsonld`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

Deno.test("a remote @context is refused, naming the URL, and never fetched", async () => {
  const server = countingServer();
  try {
    const doc = JSON.stringify({ "@context": server.url, "@id": "http://a.example/s", name: "x" });
    const problem = await problemOf(parseRdf(doc, "jsonld"));
    assert.equal(problem.status, 400);
    assert.equal(problem.slug, "remote-context-refused");
    assert.ok(problem.message.includes(server.url));
    assert.equal(problem.extensions.url, server.url);
    assert.equal(server.requests(), 0);
  } finally {
    await server.close();
  }
});

Deno.test("a configured context is served from its local copy, and only where configured", async () => {
  const url = "https://contexts.example/person.jsonld";
  const doc = JSON.stringify({ "@context": url, "@id": "http://a.example/s", name: "Alice" });
  const withWrapper = { [url]: { "@context": { name: "http://schema.org/name" } } };
  const { quads } = await parseRdf(doc, "jsonld", { contexts: withWrapper });
  assert.equal(quads.length, 1);
  assert.equal(quads[0].predicate.value, "http://schema.org/name");
  // A bare context object is accepted as the local copy too.
  const bare = { [url]: { name: "http://schema.org/givenName" } };
  const again = await parseRdf(doc, "jsonld", { contexts: bare });
  assert.equal(again.quads[0].predicate.value, "http://schema.org/givenName");
  // jsonld caches contexts by URL; a caller without the local copy must still be refused.
  const refused = await problemOf(parseRdf(doc, "jsonld"));
  assert.equal(refused.slug, "remote-context-refused");
});

Deno.test("JSON-LD in expanded, compacted, flattened and @graph forms gives one graph", async () => {
  const expanded = `[{"@id": "http://a.example/s", "@type": ["http://a.example/T"],
    "http://a.example/p": [{"@value": "x", "@language": "en"}, {"@id": "_:b"}]},
    {"@id": "_:b", "http://a.example/q": [{"@value": "5", "@type": "http://www.w3.org/2001/XMLSchema#integer"}]}]`;
  const compacted = `{"@context": {"ex": "http://a.example/"}, "@id": "ex:s", "@type": "ex:T",
    "ex:p": [{"@value": "x", "@language": "en"}, {"ex:q": 5}]}`;
  const flattened = `{"@context": {"ex": "http://a.example/"}, "@graph": [
    {"@id": "ex:s", "@type": "ex:T", "ex:p": [{"@value": "x", "@language": "en"}, {"@id": "_:n"}]},
    {"@id": "_:n", "ex:q": 5}]}`;
  const expected = await canonicalOf(expanded, "jsonld");
  assert.equal((await parseRdf(expanded, "jsonld")).quads.length, 4);
  assert.equal(await canonicalOf(compacted, "jsonld"), expected);
  assert.equal(await canonicalOf(flattened, "jsonld"), expected);
});

Deno.test("JSON-LD named graphs become quads in those graphs", async () => {
  const doc = `{"@context": {"ex": "http://a.example/"}, "@id": "ex:g",
    "@graph": [{"@id": "ex:s", "ex:p": "in graph"}]}`;
  const { quads } = await parseRdf(doc, "jsonld");
  assert.equal(quads.length, 1);
  assert.equal(quads[0].graph.value, "http://a.example/g");
});

Deno.test("invalid JSON-LD is a 400 invalid-jsonld carrying jsonld's message", async () => {
  const problem = await problemOf(
    parseRdf(`{"@context": {"@version": 2.0}, "@id": "x"}`, "jsonld"),
  );
  assert.equal(problem.status, 400);
  assert.equal(problem.slug, "invalid-jsonld");
  assert.match(problem.message, /version/i);
});

Deno.test("JSON-LD 1.1 errors jsonld.js misses are 400 invalid-jsonld naming the code", async () => {
  const cases = [
    // jsonld.js takes @id in a redefinition of @type, and one without @container.
    [{ "@context": { "@type": { "@id": "http://x.org/t" } } }, "keyword redefinition"],
    [{ "@context": [{ "p": { "@context": { "@type": {} } } }] }, "keyword redefinition"],
    // W3C toRdf er56: a context that defines @context (jsonld.js unwraps it as a document).
    [{ "@context": { "@context": { "p": "http://x.org/p" } } }, "keyword redefinition"],
    [{ "@context": [{ "@context": {} }] }, "keyword redefinition"],
    [
      { "@context": { "p": { "@id": "http://x.org/p", "@context": { "@context": {} } } } },
      "keyword redefinition",
    ],
    // jsonld.js takes an array of types on a value object.
    [
      { "http://x.org/p": { "@value": "v", "@type": ["http://a.org/", "http://b.org/"] } },
      "invalid typed value",
    ],
    [{ "http://x.org/p": { "@value": "v", "@type": "_:b" } }, "invalid typed value"],
  ] as const;
  for (const [doc, code] of cases) {
    const body = JSON.stringify({ "@id": "http://x.org/s", "http://x.org/q": "w", ...doc });
    const problem = await problemOf(parseRdf(body, "jsonld"));
    assert.equal(problem.slug, "invalid-jsonld", body);
    assert.equal(problem.extensions.code, code, body);
    assert.ok(problem.message.includes(`(${code})`), problem.message);
  }
  // What JSON-LD 1.1 allows still passes (a term's scoped context among it).
  const allowed = { "@context": { "@type": { "@container": "@set", "@protected": true } } };
  const body = JSON.stringify({ ...allowed, "@id": "http://x.org/s", "http://x.org/p": "v" });
  assert.equal((await parseRdf(body, "jsonld")).quads.length, 1);
  const scoped = {
    "@context": { "p": { "@id": "http://x.org/p", "@context": { "q": "http://x.org/q" } } },
    "@id": "http://x.org/s",
    "p": { "q": "v" },
  };
  assert.equal((await parseRdf(JSON.stringify(scoped), "jsonld")).quads.length, 2);
});

Deno.test("a literal with an unpaired surrogate is refused, not written as U+FFFD", async () => {
  for (const format of ["jsonld", "rdfjson"] as const) {
    const body = format === "jsonld"
      ? `{"@id": "http://x.org/s", "http://x.org/p": "a\\ud800b"}`
      : `{"http://x.org/s": {"http://x.org/p": [{"type": "literal", "value": "a\\ud800b"}]}}`;
    const problem = await problemOf(parseRdf(body, format));
    assert.equal(problem.slug, "rdf-syntax", format);
    assert.match(problem.message, /unpaired surrogate/);
  }
});

Deno.test("JSON-LD that the algorithms would partly drop is refused, not stored short", async () => {
  const cases = [
    [{ "@id": "http://x.org/s", "name": "v", "http://x.org/p": "w" }, "invalid property"],
    [
      { "@id": "http://x.org/s", "http://x.org/p": { "@value": "v", "@direction": "rtl" } },
      "rdfDirection not set",
    ],
  ] as const;
  for (const [doc, code] of cases) {
    const problem = await problemOf(parseRdf(JSON.stringify(doc), "jsonld"));
    assert.equal(problem.slug, "invalid-jsonld");
    assert.equal(problem.extensions.code, code);
  }
});

Deno.test("xsd:double strings keep their lexical form through JSON-LD", async () => {
  const doc = `{"@id": "http://a.example/s", "http://a.example/p": [
    {"@value": "-INF", "@type": "http://www.w3.org/2001/XMLSchema#double"},
    {"@value": "1.5e3", "@type": "http://www.w3.org/2001/XMLSchema#double"}]}`;
  const values = (await parseRdf(doc, "jsonld")).quads.map((q) => q.object.value).sort();
  assert.deepEqual(values, ["-INF", "1.5e3"]);
  for (const q of (await parseRdf(doc, "jsonld")).quads) {
    assert.equal(
      (q.object as { datatype: { value: string } }).datatype.value,
      "http://www.w3.org/2001/XMLSchema#double",
    );
  }
});

Deno.test("blank nodes of two documents never share a label", async () => {
  const jsonLd = `{"@id": "_:x", "http://a.example/p": "v"}`;
  const a = await parseRdf(jsonLd, "jsonld");
  const b = await parseRdf(jsonLd, "jsonld");
  assert.notEqual(a.quads[0].subject.value, b.quads[0].subject.value);
  const rdfJson = `{"_:x": {"http://a.example/p": [{"type": "bnode", "value": "_:x"}]}}`;
  const c = await parseRdf(rdfJson, "rdfjson");
  const d = await parseRdf(rdfJson, "rdfjson");
  assert.notEqual(c.quads[0].subject.value, d.quads[0].subject.value);
  assert.equal(c.quads[0].subject.value, c.quads[0].object.value);
});

// --- RDF/JSON ----------------------------------------------------------------------------

Deno.test("RDF/JSON errors name their JSON Pointer paths", async () => {
  const doc = JSON.stringify({
    "http://a.example/s": {
      "http://a.example/p": [
        { type: "url", value: "http://a.example/o" },
        { type: "literal", value: "x", lang: "en", datatype: "http://a.example/d" },
        { type: "uri", value: "not an iri" },
      ],
      "not-a-predicate": [],
    },
  });
  const problem = await problemOf(parseRdf(doc, "rdfjson"));
  assert.equal(problem.slug, "rdf-syntax");
  const paths = problem.errors!.map((e) => e.path);
  assert.deepEqual(paths, [
    "/http:~1~1a.example~1s/http:~1~1a.example~1p/0/type",
    "/http:~1~1a.example~1s/http:~1~1a.example~1p/1",
    "/http:~1~1a.example~1s/http:~1~1a.example~1p/2/value",
    "/http:~1~1a.example~1s/not-a-predicate",
  ]);
});

Deno.test("RDF/JSON literals: language (as written), datatype, plain", async () => {
  const doc = JSON.stringify({
    "http://a.example/s": {
      "http://a.example/p": [
        { type: "literal", value: "x", lang: "en-GB" },
        { type: "literal", value: "5", datatype: "http://www.w3.org/2001/XMLSchema#integer" },
        { type: "literal", value: "plain" },
      ],
    },
  });
  const turtle = `<http://a.example/s> <http://a.example/p> "x"@en-gb, 5, "plain" .`;
  assert.equal(await canonicalOf(doc, "rdfjson"), await canonicalOf(turtle, "turtle"));
  const { quads } = await parseRdf(doc, "rdfjson");
  assert.deepEqual(
    quads.map((quad) => quad.object.termType === "Literal" && quad.object.language),
    [
      "en-GB",
      "",
      "",
    ],
  );
});

// --- RDF/XML -----------------------------------------------------------------------------

const RDF_OPEN = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:ex="http://example.org/">`;

function lols(levels: number): string {
  let dtd = `<!ENTITY lol0 "lollollollollollollollollollol">\n`;
  for (let i = 1; i <= levels; i++) {
    dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">\n`;
  }
  return dtd;
}

Deno.test("RDF/XML: a billion-laughs entity bomb is refused fast", async () => {
  const bomb = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
${lols(9)}]>
${RDF_OPEN}
  <rdf:Description rdf:about="http://example.org/s"><ex:p>&lol9;</ex:p></rdf:Description>
</rdf:RDF>`;
  const started = performance.now();
  const problem = await problemOf(parseRdf(bomb, "rdfxml"));
  assert.ok(performance.now() - started < 1000, "took longer than a second");
  assert.equal(problem.status, 400);
  assert.match(problem.message, /expands too far|too much text/);
  // Many references to a modest entity are refused the same way.
  const wide = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
${lols(3)}]>
${RDF_OPEN}
  <rdf:Description rdf:about="http://example.org/s"><ex:p>${
    "&lol3;".repeat(2000)
  }</ex:p></rdf:Description>
</rdf:RDF>`;
  assert.equal((await problemOf(parseRdf(wide, "rdfxml"))).status, 400);
});

Deno.test("RDF/XML: the entity guard is not bypassed by a lower-case <!doctype", async () => {
  // The XML parser accepts the keyword in any case and expands the entities it declares.
  for (const keyword of ["doctype", "DocType"]) {
    const bomb = `<?xml version="1.0"?>
<!${keyword} rdf:RDF [
${lols(9)}]>
${RDF_OPEN}
  <rdf:Description rdf:about="http://example.org/s"><ex:p>&lol9;</ex:p></rdf:Description>
</rdf:RDF>`;
    const problem = await problemOf(parseRdf(bomb, "rdfxml"));
    assert.equal(problem.status, 400);
    assert.match(problem.message, /expands too far|too much text/);
    const external = `<?xml version="1.0"?>
<!${keyword} rdf:RDF [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
${RDF_OPEN}<rdf:Description rdf:about="http://example.org/s"><ex:p>&xxe;</ex:p></rdf:Description></rdf:RDF>`;
    assert.match((await problemOf(parseRdf(external, "rdfxml"))).message, /external entity/);
  }
});

Deno.test("RDF/XML: external and parameter entities are refused, even behind ]>", async () => {
  const external = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY trick "]>"> <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
${RDF_OPEN}<rdf:Description rdf:about="http://example.org/s"><ex:p>&xxe;</ex:p></rdf:Description></rdf:RDF>`;
  const problem = await problemOf(parseRdf(external, "rdfxml"));
  assert.match(problem.message, /external entity &xxe;/);
  const parameter = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY % p "x"> ]>
${RDF_OPEN}</rdf:RDF>`;
  assert.match((await problemOf(parseRdf(parameter, "rdfxml"))).message, /parameter entity/);
});

Deno.test("RDF/XML: ordinary entity declarations (as OWL files use them) still work", async () => {
  const owlStyle = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY ex "http://example.org/" >
  <!ENTITY xsd "http://www.w3.org/2001/XMLSchema#" >
]>
${RDF_OPEN}
  <rdf:Description rdf:about="&ex;s">
    <ex:p rdf:datatype="&xsd;integer">5</ex:p>
  </rdf:Description>
</rdf:RDF>`;
  assert.equal(
    await canonicalOf(owlStyle, "rdfxml"),
    await canonicalOf(`<http://example.org/s> <http://example.org/p> 5 .`, "turtle"),
  );
});

Deno.test("RDF/XML: syntax errors name the line", async () => {
  const xml = `<?xml version="1.0"?>
${RDF_OPEN}
  <rdf:Description rdf:about="http://example.org/s">
    <ex:p>ok</ex:p>
    <ex:p>broken</ex:q>
  </rdf:Description>
</rdf:RDF>`;
  const problem = await problemOf(parseRdf(xml, "rdfxml"));
  assert.equal(problem.status, 400);
  assert.match(problem.message, /RDF\/XML body could not be parsed at line 6/);
});

Deno.test("RDF/XML: the abbreviated syntax is understood", async () => {
  const xml = `<?xml version="1.0"?>
${RDF_OPEN}
  <ex:Document rdf:about="http://example.org/d" ex:title="Title" xml:lang="en">
    <ex:parts rdf:parseType="Collection">
      <rdf:Description rdf:about="http://example.org/a"/>
    </ex:parts>
    <ex:author rdf:parseType="Resource"><ex:name>Ann</ex:name></ex:author>
  </ex:Document>
</rdf:RDF>`;
  const turtle = `@prefix ex: <http://example.org/> .
ex:d a ex:Document ; ex:title "Title"@en ; ex:parts ( ex:a ) ; ex:author [ ex:name "Ann"@en ] .`;
  assert.equal(await canonicalOf(xml, "rdfxml"), await canonicalOf(turtle, "turtle"));
});

Deno.test("a format no parser reads is a 415, not a guess at N3", async () => {
  // Valid Turtle: the N3 parser would have read it.
  const turtle = "<http://example.org/a> <http://example.org/b> <http://example.org/c> .";
  const format = "text/x-unknown" as Parameters<typeof parseRdf>[1];
  const problem = await problemOf(parseRdf(turtle, format));
  assert.equal(problem.status, 415);
  assert.equal(problem.slug, "unsupported-media-type");
});
