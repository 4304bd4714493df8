/**
 * SHACL generation over a synthetic graph with several classes and every feature the
 * generator handles: mandatory and optional properties, mixed datatypes, IRIs mixed with
 * literals, language tags, typed blank nodes, class-valued links and multi-typed instances.
 *
 * Run: `deno run --allow-all bench/shacl_generation.ts`
 *
 * @module
 */
import { DataFactory, type Quad } from "n3";
import { generateShacl } from "../src/rdf/shacl/generate.ts";

const { blankNode, literal, namedNode, quad } = DataFactory;

const EX = "http://example.org/bench/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const term = (local: string) => namedNode(`${EX}${local}`);
const type = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");
const xsd = (local: string) => namedNode(`${XSD}${local}`);
const LANGUAGES = ["en", "fr", "de", "nl"];

/** Builds about `tripleCount` triples (it stops at the first entity past the count). */
export function syntheticGraph(tripleCount: number): Quad[] {
  const quads: Quad[] = [];
  const add = (subject: Quad["subject"], predicate: string, object: Quad["object"]) =>
    quads.push(quad(subject, term(predicate), object));
  for (let index = 0; quads.length < tripleCount; index++) {
    const organization = term(`org/${index % 500}`);
    if (index < 500) {
      quads.push(quad(organization, type, term("Organization")));
      add(organization, "name", literal(`Organization ${index}`));
      add(
        organization,
        "founded",
        index % 3 === 0 ? literal("1999", xsd("gYear")) : literal("2001-02-03", xsd("date")),
      );
      add(
        organization,
        "homepage",
        index % 4 === 0 ? literal(`www.org${index}.example`) : term(`site/${index}`),
      );
    }

    const person = term(`person/${index}`);
    quads.push(quad(person, type, term("Person")));
    if (index % 3 === 0) quads.push(quad(person, type, term("Employee")));
    add(person, "name", literal(`Person ${index}`));
    if (index % 10 < 7) add(person, "age", literal(String(20 + index % 50), xsd("integer")));
    add(person, "label", literal(`Person ${index}`, LANGUAGES[index % 4]));
    add(person, "label", literal(`Persoon ${index}`, LANGUAGES[(index + 1) % 4]));
    for (let email = 0; email < index % 3; email++) {
      add(person, "email", literal(`p${index}.${email}@example.org`));
    }
    add(person, "worksFor", organization);
    if (index > 0) add(person, "knows", term(`person/${index - 1}`));
    if (index % 3 === 0) add(person, "salary", literal(`${3000 + index % 900}.50`, xsd("decimal")));

    const address = blankNode(`address${index}`);
    add(person, "address", address);
    quads.push(quad(address, type, term("Address")));
    add(address, "city", literal(`City ${index % 97}`));
    if (index % 2 === 0) add(address, "zip", literal(String(10000 + index % 89999)));

    if (index % 5 === 0) {
      const document = term(`doc/${index}`);
      quads.push(quad(document, type, term("Document")));
      add(document, "title", literal(`Document ${index}`, LANGUAGES[index % 4]));
      add(document, "author", person);
      add(
        document,
        "pages",
        index % 7 === 0 ? literal("unknown") : literal(String(index % 400), xsd("integer")),
      );
    }
  }
  return quads;
}

/** Times `generateShacl` on a synthetic graph of about `tripleCount` triples. */
export async function benchShaclGeneration(
  tripleCount: number,
): Promise<{ generateMs: number; triples: number }> {
  const quads = syntheticGraph(tripleCount);
  // Yield once so the graph's allocation work settles before the clock starts.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const started = performance.now();
  const turtle = generateShacl(quads, "http://example.org/shapes/");
  const generateMs = performance.now() - started;
  if (!turtle.includes("sh:NodeShape")) throw new Error("no shapes generated");
  return { generateMs, triples: quads.length };
}

if (import.meta.main) {
  for (const size of [100_000, 1_000_000]) {
    const { generateMs, triples } = await benchShaclGeneration(size);
    const heapMiB = Deno.memoryUsage().heapUsed / 2 ** 20;
    console.log(
      `shacl generation: ${triples} triples in ${generateMs.toFixed(0)} ms ` +
        `(${(triples / generateMs * 1000 / 1e6).toFixed(2)} M triples/s, heap after ${
          heapMiB.toFixed(0)
        } MiB)`,
    );
  }
}
