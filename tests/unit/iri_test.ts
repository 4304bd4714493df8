/**
 * `isAbsoluteIri` accepts exactly the IRIs the embedded SPARQL engine (oxigraph, a full
 * RFC 3987 parser) accepts, among strings that pass docs/api.md's lexical rule: anything more
 * lenient could be stored and then break every query of the store.
 */
import { strict as assert } from "node:assert";
import oxigraph from "oxigraph";
import { isAbsoluteIri } from "../../src/rdf/iri.ts";

function oxigraphAccepts(value: string): boolean {
  try {
    oxigraph.namedNode(value);
    return true;
  } catch {
    return false;
  }
}

Deno.test("IRIs the service accepts and refuses", () => {
  const accepted = [
    "https://data.example.org/id/document/1",
    "urn:x-test:a;b,c(d)*e!f$g+h=i@j~k",
    "https://x.org/quote'in'it#frag",
    "https://x.org/q?x='1'&y=%3E%20%7D%22",
    "https://x.org/ü/\u00a0/\u2028/\u{1F600}",
    "https://x.org/q?private-use-\uE000",
    "http://[::1]:8080/x",
    "http://[::ffff:1.2.3.4]/",
    "http://[v1.x]/",
    "http://user:pw@host:/",
    "x:",
    "file:///etc/passwd",
  ];
  const refused = [
    "",
    "relative/path",
    "https://x.org/a b",
    "https://x.org/a>b",
    "https://x.org/a\u0000",
    "https://x.org/a\u0085",
    "https://x.org/%ZZ",
    "https://x.org/%4",
    "https://x.org/a#b#c",
    "https://x.org/[x]",
    "http://x.org:port/",
    "http://[1::2::3]/",
    "http://[1:2]/",
    "https://x.org/\uE000",
    "https://x.org/\uFFFE",
    "https://x.org/\ud800",
  ];
  for (const value of accepted) assert.ok(isAbsoluteIri(value), JSON.stringify(value));
  for (const value of refused) assert.ok(!isAbsoluteIri(value), JSON.stringify(value));
  for (const value of [...accepted, ...refused]) {
    assert.equal(isAbsoluteIri(value), oxigraphAccepts(value), JSON.stringify(value));
  }
});

Deno.test("isAbsoluteIri agrees with oxigraph on 50,000 generated strings", () => {
  const pieces = [
    "a",
    "Z",
    "0",
    ":",
    "/",
    "?",
    "#",
    "[",
    "]",
    "@",
    "%",
    "%4",
    "%41",
    "%zz",
    ".",
    "-",
    "~",
    "!",
    "'",
    "(",
    ")",
    "+",
    ";",
    "=",
    "ü",
    "\u00a0",
    "\u2028",
    "\uE000",
    "\uFFFE",
    "\uFDD0",
    "\u{1F600}",
    "\u{F0000}",
    "::",
    "1.2.3.4",
    "v1.x",
    "ffff",
    " ",
    "<",
    "\\",
    "\u0085",
  ];
  const starts = ["http://", "http://[", "s:", "urn:x:", "http://u@", "a+b://h:80", "", "1a:"];
  // A fixed linear congruential sequence: the same strings on every run.
  let seed = 12345;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let i = 0; i < 50_000; i++) {
    let value = starts[next(starts.length)];
    for (let j = next(8); j > 0; j--) value += pieces[next(pieces.length)];
    assert.equal(isAbsoluteIri(value), oxigraphAccepts(value), JSON.stringify(value));
  }
});

Deno.test("isAbsoluteIri is linear on long input", () => {
  const started = performance.now();
  assert.ok(isAbsoluteIri(`https://x.org/${"a".repeat(1_000_000)}`));
  assert.ok(!isAbsoluteIri(`https://x.org/${"a".repeat(1_000_000)} `));
  assert.ok(!isAbsoluteIri(`http://${"a:".repeat(100_000)}@@`));
  assert.ok(performance.now() - started < 5_000);
});
