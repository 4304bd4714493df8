/**
 * Search field paths (src/fields/field_paths.ts) and values (src/search/mapped_fields.ts):
 * SPARQL 1.1 property paths parsed with the collection's prefixes, evaluated over a graph
 * with forward, inverse, sequence, alternative and repeated steps; values converted to the
 * field's type or refused; and the customer.yml keys that declare them, where a bad path,
 * type or language stops start-up naming the key.
 */
import { strict as assert } from "node:assert";
import { DataFactory, Parser, type Quad, type Term } from "n3";
import {
  evaluatePath,
  FieldPathError,
  parseFieldPath,
  type PathGraph,
  prefixesOf,
} from "../../src/fields/field_paths.ts";
import { fieldContribution, MappedFieldError } from "../../src/search/mapped_fields.ts";
import { ConfigError, parseConfigText } from "../../src/config/load.ts";

const PREFIXES = prefixesOf({ ex: "https://ex.org/" });

/** A graph from Turtle, for paths. */
function graphOf(turtle: string): PathGraph {
  const quads: Quad[] = new Parser().parse(`@prefix ex: <https://ex.org/> . ${turtle}`);
  const same = (a: Term, b: Term) => a.equals(b);
  return {
    objects: (node, predicate) =>
      Promise.resolve(
        quads.filter((q) => same(q.subject, node) && q.predicate.value === predicate)
          .map((q) => q.object),
      ),
    subjects: (node, predicate) =>
      Promise.resolve(
        quads.filter((q) => same(q.object, node) && q.predicate.value === predicate)
          .map((q) => q.subject),
      ),
  };
}

const GRAPH = graphOf(`
  ex:doc ex:subject ex:c1, ex:c2 ; ex:title "Doc" .
  ex:c1 ex:label "One"@en ; ex:broader ex:c3 .
  ex:c2 ex:label "Two" ; ex:broader ex:c3 .
  ex:c3 ex:label "Top" ; ex:broader ex:c1 .
  ex:other ex:cites ex:doc .
`);

async function reach(path: string, from = "https://ex.org/doc"): Promise<string[]> {
  const nodes = await evaluatePath(
    parseFieldPath(path, PREFIXES),
    DataFactory.namedNode(from),
    GRAPH,
  );
  return nodes.map((node) => node.value).sort();
}

Deno.test("paths: IRIs, sequences, alternatives, inverse and repetition", async () => {
  assert.deepEqual(await reach("ex:title"), ["Doc"]);
  assert.deepEqual(await reach("<https://ex.org/title>"), ["Doc"]);
  assert.deepEqual(await reach("ex:subject/ex:label"), ["One", "Two"]);
  assert.deepEqual(await reach("ex:title|ex:subject/ex:label"), ["Doc", "One", "Two"]);
  assert.deepEqual(await reach("^ex:cites"), ["https://ex.org/other"]);
  assert.deepEqual(await reach("^ex:subject", "https://ex.org/c1"), ["https://ex.org/doc"]);
  assert.deepEqual(await reach("^(ex:subject/ex:broader)", "https://ex.org/c3"), [
    "https://ex.org/doc",
  ]);
  // The broader chain has a cycle (c3 → c1): repetition ends anyway, each node once.
  assert.deepEqual(await reach("ex:subject/ex:broader+/ex:label"), ["One", "Top"]);
  assert.deepEqual(await reach("ex:subject/ex:broader*/ex:label"), ["One", "Top", "Two"]);
  assert.deepEqual(await reach("ex:subject/ex:broader?/ex:label"), ["One", "Top", "Two"]);
  assert.deepEqual(await reach("ex:nothing/ex:label"), []);
});

Deno.test("paths that are not property paths are refused with the reason", () => {
  for (const bad of ["ex:a/", "!ex:a", "unknown:a", "?x", '"literal"', "ex:a ex:b"]) {
    assert.throws(() => parseFieldPath(bad, PREFIXES), FieldPathError, bad);
  }
  assert.deepEqual(parseFieldPath("a", PREFIXES), {
    kind: "iri",
    iri: "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
  });
  // The context's prefixes, and the well-known ones unless the context redefines them.
  assert.equal(prefixesOf({ skos: "urn:x:" }).skos, "urn:x:");
  assert.equal(prefixesOf({}).dct, "http://purl.org/dc/terms/");
  assert.equal(prefixesOf({ "@context": { v: { "@id": "urn:v#" } } }).v, "urn:v#");
});

Deno.test("values take the field's type, or the item's document fails naming them", () => {
  const literal = (value: string, language?: string) => DataFactory.literal(value, language);
  const iri = DataFactory.namedNode("https://ex.org/x");
  const base = { name: "f", path: "ex:p", multiple: true } as const;
  assert.deepEqual(
    fieldContribution({ ...base, type: "text" }, [literal("b", "de"), literal("a"), iri]),
    {
      value: ["a", "b", "https://ex.org/x"],
      texts: [{ text: "b", language: "de" }, { text: "a" }, { text: "https://ex.org/x" }],
    },
  );
  assert.deepEqual(
    fieldContribution({ ...base, type: "text", language: "en" }, [literal("x", "de")]).texts,
    [{ text: "x", language: "en" }],
  );
  assert.deepEqual(
    fieldContribution({ ...base, type: "integer" }, [literal(" 12 "), literal("3")]).value,
    [3, 12],
  );
  assert.equal(
    fieldContribution({ ...base, type: "integer", multiple: false }, [literal("7"), literal("3")])
      .value,
    3,
  );
  assert.deepEqual(fieldContribution({ ...base, type: "boolean" }, [literal("1")]).value, [true]);
  assert.deepEqual(fieldContribution({ ...base, type: "date" }, [literal("2020-05")]).value, [
    "2020-05",
  ]);
  assert.deepEqual(fieldContribution({ ...base, type: "keyword" }, []), { texts: [] });
  for (
    const [type, value] of [
      ["integer", literal("1.5")],
      ["decimal", literal("ten")],
      ["date", literal("yesterday")],
      ["boolean", literal("yes")],
      ["iri", literal("https://ex.org/x")],
      ["integer", iri],
    ] as const
  ) {
    assert.throws(
      () => fieldContribution({ ...base, type }, [value]),
      (error: unknown) =>
        error instanceof MappedFieldError && error.message.includes("search field 'f'") &&
        error.message.includes(JSON.stringify(value.value)),
      `${type} ${value.value}`,
    );
  }
});

function collectionYaml(fields: string): string {
  return `
workspaces:
  - uri: https://ex.org/w
    name: W
    collections:
      - uri: https://ex.org/c
        name: C
        context:
          ex: https://ex.org/
        index:
          name: things
          fields:
${fields}`;
}

Deno.test("index.fields in customer.yml: parsed, and a bad one stops start-up naming the key", () => {
  const config = parseConfigText(
    collectionYaml(`            - name: subject
              path: ex:subject/skos:prefLabel
              language: de
            - name: year
              path: ex:year
              type: integer
              multiple: false
`),
    "t",
    () => undefined,
  );
  const collection = config.workspaces[0].collections[0];
  assert.equal(collection.index, "things");
  assert.deepEqual(collection.fields, [
    {
      name: "subject",
      path: "ex:subject/skos:prefLabel",
      type: "text",
      language: "de",
      multiple: true,
    },
    { name: "year", path: "ex:year", type: "integer", multiple: false },
  ]);
  const refused = (fields: string, key: string, reason: RegExp) =>
    assert.throws(
      () => parseConfigText(collectionYaml(fields), "t", () => undefined),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes(key) && reason.test(error.message),
      key,
    );
  const at = "workspaces.0.collections.0.index.fields.0";
  refused("            - name: a\n              path: nope:x\n", `${at}.path`, /property path/);
  refused("            - name: a\n              path: '!ex:x'\n", `${at}.path`, /negated/);
  refused(
    "            - name: a\n              path: ex:x\n              type: float\n",
    `${at}.type`,
    /./,
  );
  refused(
    "            - name: a\n              path: ex:x\n              language: xx\n",
    `${at}.language`,
    /./,
  );
  refused("            - name: text\n              path: ex:x\n", `${at}.name`, /service sets/);
  refused(
    "            - name: a\n              path: ex:x\n              type: integer\n              language: de\n",
    `${at}.language`,
    /only text/,
  );
  refused(
    "            - name: a\n              path: ex:x\n            - name: a\n              path: ex:y\n",
    "workspaces.0.collections.0.index.fields.1.name",
    /another field/,
  );
});
