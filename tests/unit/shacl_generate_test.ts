import { strict as assert } from "node:assert";
import { DataFactory, type Quad, type Term } from "n3";
import { generateShacl } from "../../src/rdf/shacl/generate.ts";
import {
  BLANK_NODES,
  CLASHING_LOCAL_NAMES,
  EX,
  FOAF,
  IRI_VALUES_OF_ONE_CLASS,
  LANGUAGE_TAGS,
  MIXED_DATATYPES,
  MULTIPLE_CLASSES,
  OPTIONAL_AND_MANDATORY,
  parseTurtle,
  RDF,
  SCHEMA,
  sh,
  SHAPES_NAMESPACE,
  ShapesGraph,
  SUBCLASSES,
  validate,
  withoutValues,
  withValue,
  XSD,
} from "../support/shacl_datasets.ts";

const { literal, namedNode } = DataFactory;

function shapesFor(data: Quad[]): ShapesGraph {
  return new ShapesGraph(generateShacl(data, SHAPES_NAMESPACE));
}

async function assertConforms(shapes: ShapesGraph, data: Quad[]): Promise<void> {
  const outcome = await validate(shapes, data);
  assert.deepEqual(outcome.components, []);
  assert.equal(outcome.conforms, true);
}

async function assertViolates(shapes: ShapesGraph, data: Quad[], component: string): Promise<void> {
  const outcome = await validate(shapes, data);
  assert.equal(outcome.conforms, false);
  assert.ok(outcome.components.includes(component), `${component} in ${outcome.components}`);
}

const shapeIri = (local: string) => `${SHAPES_NAMESPACE}${local}`;

Deno.test("mixed datatypes become sh:or of one shape per datatype", async () => {
  const data = parseTurtle(MIXED_DATATYPES);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Measurement/value", "nodeKind"), sh("Literal"));
  assert.equal(shapes.value("Measurement/value", "datatype"), undefined);
  assert.deepEqual(
    shapes.list("Measurement/value", "or"),
    ["decimal", "integer", "string"].map((name) => shapeIri(`Measurement/value/${name}`)),
  );
  for (const name of ["decimal", "integer", "string"]) {
    assert.equal(shapes.value(`Measurement/value/${name}`, "datatype"), `${XSD}${name}`);
  }
  assert.equal(shapes.value("Measurement/source", "nodeKind"), sh("IRIOrLiteral"));
  assert.deepEqual(
    shapes.list("Measurement/source", "or"),
    [shapeIri("Measurement/source/IRI"), shapeIri("Measurement/source/string")],
  );
  assert.equal(shapes.value("Measurement/source/IRI", "nodeKind"), sh("IRI"));
  assert.equal(shapes.value("Measurement/label", "datatype"), `${XSD}string`);
  // sh:languageIn rejects untagged values, so it sits in the language-string branch only.
  assert.deepEqual(
    shapes.list("Measurement/note", "or"),
    [shapeIri("Measurement/note/langString"), shapeIri("Measurement/note/string")],
  );
  assert.deepEqual(shapes.list("Measurement/note/langString", "languageIn"), ["de", "en"]);
  assert.deepEqual(shapes.values("Measurement/note", "languageIn"), []);
  assert.equal(shapes.value("Measurement/note", "uniqueLang"), "true");

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}m2`, `${EX}label`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}m1`, `${EX}label`, literal("again")),
    "MaxCountConstraintComponent",
  );
  // A datatype never seen for ex:value matches no branch of the sh:or.
  await assertViolates(
    shapes,
    withValue(
      withoutValues(data, `${EX}m4`, `${EX}value`),
      `${EX}m4`,
      `${EX}value`,
      literal("true", namedNode(`${XSD}boolean`)),
    ),
    "OrConstraintComponent",
  );
});

Deno.test("language-tagged strings get sh:languageIn and, where it holds, sh:uniqueLang", async () => {
  const data = parseTurtle(LANGUAGE_TAGS);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Book/title", "datatype"), `${RDF}langString`);
  const titleLanguages = shapes.list("Book/title", "languageIn").map((tag) => tag.toLowerCase());
  assert.deepEqual(titleLanguages, ["de", "en", "en-gb", "fr"]);
  assert.equal(shapes.value("Book/title", "uniqueLang"), "true");
  assert.deepEqual(shapes.list("Book/keyword", "languageIn"), ["de", "en"]);
  assert.equal(shapes.value("Book/keyword", "uniqueLang"), undefined, "b1 has two @en keywords");
  assert.equal(shapes.value("Book/isbn", "uniqueLang"), undefined, "no language tags");

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}b2`, `${EX}title`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}b2`, `${EX}isbn`, literal("999")),
    "MaxCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}b2`, `${EX}title`, literal("Die Brücke", "de")),
    "UniqueLangConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}b2`, `${EX}title`, literal("De Rivier", "nl")),
    "LanguageInConstraintComponent",
  );
});

Deno.test("properties every instance has are mandatory, single-valued ones get sh:maxCount 1", async () => {
  const data = parseTurtle(OPTIONAL_AND_MANDATORY);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Person/name", "minCount"), "1");
  assert.equal(shapes.value("Person/name", "maxCount"), "1");
  assert.equal(shapes.value("Person/email", "minCount"), undefined);
  assert.equal(shapes.value("Person/email", "maxCount"), "1");
  assert.equal(shapes.value("Person/nickname", "minCount"), "1");
  assert.equal(shapes.value("Person/nickname", "maxCount"), undefined);

  await assertConforms(shapes, data);
  await assertConforms(shapes, withoutValues(data, `${EX}alice`, `${EX}email`));
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}bob`, `${EX}name`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}bob`, `${EX}nickname`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}alice`, `${EX}email`, literal("a@b.c")),
    "MaxCountConstraintComponent",
  );
});

Deno.test("IRI values sharing a class get sh:class with the class common to all", async () => {
  const data = parseTurtle(IRI_VALUES_OF_ONE_CLASS);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Employee/worksFor", "nodeKind"), sh("IRI"));
  assert.deepEqual(shapes.values("Employee/worksFor", "class").map((term) => term.value), [
    `${EX}Organization`,
  ]);
  assert.equal(shapes.value("Employee/knows", "nodeKind"), sh("IRI"));
  assert.deepEqual(shapes.values("Employee/knows", "class"), []);

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}erin`, `${EX}worksFor`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}dan`, `${EX}worksFor`, namedNode(`${EX}unesco`)),
    "MaxCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(
      withoutValues(data, `${EX}dan`, `${EX}worksFor`),
      `${EX}dan`,
      `${EX}worksFor`,
      namedNode(`${EX}outsider`),
    ),
    "ClassConstraintComponent",
  );
});

Deno.test("blank-node values and blank-node instances are profiled like IRIs", async () => {
  const data = parseTurtle(BLANK_NODES);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Customer/address", "nodeKind"), sh("BlankNode"));
  assert.deepEqual(shapes.values("Customer/address", "class").map((term) => term.value), [
    `${EX}Address`,
  ]);
  assert.equal(shapes.value("Customer/contact", "nodeKind"), sh("BlankNodeOrIRI"));
  assert.deepEqual(shapes.values("Customer/contact", "class"), []);
  assert.equal(shapes.value("Customer/visitedOn", "datatype"), `${XSD}date`);
  assert.equal(shapes.value("Customer/visitedOn", "minCount"), undefined);
  assert.equal(shapes.value("Address/city", "minCount"), "1");
  assert.equal(shapes.value("Address/zip", "minCount"), undefined);

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}grace`, `${EX}address`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}frank`, `${EX}address`, namedNode(`${EX}hq`)),
    "MaxCountConstraintComponent",
  );
});

Deno.test("an instance of several classes counts for each class's shape", async () => {
  const data = parseTurtle(MULTIPLE_CLASSES);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Person/fullName", "minCount"), "1");
  assert.equal(shapes.value("Person/salary", "minCount"), undefined);
  assert.equal(shapes.value("Employee/salary", "minCount"), "1");
  assert.equal(shapes.value("Employee/fullName", "minCount"), undefined);
  assert.equal(shapes.value("Employee/badge", "path"), `${EX}badge`);
  assert.equal(shapes.value("Person/badge", "path"), undefined, "no person has a badge");

  await assertConforms(shapes, data);
  await assertConforms(shapes, withoutValues(data, `${EX}kate`, `${EX}fullName`));
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}hank`, `${EX}salary`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}jack`, `${EX}fullName`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}kate`, `${EX}badge`, literal("K-18")),
    "MaxCountConstraintComponent",
  );
});

Deno.test("clashing local names get a suffix in IRI order", async () => {
  const data = parseTurtle(CLASHING_LOCAL_NAMES);
  const shapes = shapesFor(data);

  assert.deepEqual(
    shapes.subjectsOfType("NodeShape"),
    [shapeIri("Person"), shapeIri("Person_2")],
  );
  assert.equal(shapes.value("Person", "targetClass"), `${SCHEMA}Person`);
  assert.equal(shapes.value("Person_2", "targetClass"), `${FOAF}Person`);
  assert.equal(shapes.value("Person/name", "path"), `${SCHEMA}name`);
  assert.equal(shapes.value("Person/name_2", "path"), `${FOAF}name`);
  assert.equal(
    shapes.value("Person_2/name_2", "path"),
    `${FOAF}name`,
    "a predicate keeps one name everywhere",
  );
  assert.deepEqual(
    shapes.values("Person", "property").map((term) => term.value).sort(),
    [shapeIri("Person/name"), shapeIri("Person/name_2")],
  );

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}lena`, `${FOAF}name`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}nina`, `${FOAF}name`, literal("N.")),
    "MaxCountConstraintComponent",
  );
});

Deno.test("instances of a subclass are counted for the superclass they are validated against", async () => {
  const data = parseTurtle(SUBCLASSES);
  const shapes = shapesFor(data);

  assert.equal(shapes.value("Animal/owner", "minCount"), "1");
  assert.equal(shapes.value("Animal/chipId", "minCount"), undefined, "tom has no chip");
  assert.equal(shapes.value("Dog/chipId", "minCount"), "1");
  assert.deepEqual(shapes.values("Owner/pet", "class").map((term) => term.value), [`${EX}Dog`]);

  await assertConforms(shapes, data);
  await assertViolates(
    shapes,
    withoutValues(data, `${EX}tom`, `${EX}owner`),
    "MinCountConstraintComponent",
  );
  await assertViolates(
    shapes,
    withValue(data, `${EX}rex`, `${EX}chipId`, literal("D-2")),
    "MaxCountConstraintComponent",
  );
});

Deno.test("no property shape is made for rdf:type, and sh:closed is never used", () => {
  const data = parseTurtle(MULTIPLE_CLASSES + CLASHING_LOCAL_NAMES + SUBCLASSES);
  const shapes = shapesFor(data);

  assert.deepEqual(shapes.store.getQuads(null, sh("path"), `${RDF}type`, null), []);
  assert.deepEqual(shapes.store.getQuads(null, sh("closed"), null, null), []);
});

Deno.test("data without typed instances gives prefixes and a comment, no shapes", () => {
  const data = parseTurtle(`<http://example.org/a> <http://example.org/p> "untyped" .`);
  const shapes = shapesFor(data);

  assert.equal(shapes.store.size, 0);
  assert.equal(shapes.prefixes.shape, SHAPES_NAMESPACE);
  assert.equal(shapes.prefixes.sh, sh(""));
  assert.ok(shapes.comments.some((comment) => comment.startsWith("No typed instances")));
});

Deno.test("prefixes cover the data's namespaces and the given shapes namespace", () => {
  const data = parseTurtle(CLASHING_LOCAL_NAMES + IRI_VALUES_OF_ONE_CLASS);
  const shapes = shapesFor(data);

  assert.deepEqual(
    Object.entries(shapes.prefixes).sort(),
    [
      ["data", EX],
      ["foaf", FOAF],
      ["rdf", RDF],
      ["schema", SCHEMA],
      ["sh", sh("")],
      ["shape", SHAPES_NAMESPACE],
      ["xsd", XSD],
    ],
  );
  assert.doesNotMatch(shapes.turtle, /<http:\/\/schema\.org\/[^>]/, "schema.org IRIs are prefixed");
});

Deno.test("the namespace is used exactly as given, even without a trailing separator", () => {
  const namespace = "urn:example:shapes:v1.";
  const shapes = new ShapesGraph(generateShacl(parseTurtle(OPTIONAL_AND_MANDATORY), namespace));

  assert.deepEqual(
    shapes.store.getSubjects(`${RDF}type`, sh("NodeShape"), null).map((term: Term) => term.value),
    [`${namespace}Person`],
  );
  assert.equal(
    shapes.store.getObjects(`${namespace}Person/name`, sh("path"), null)[0]?.value,
    `${EX}name`,
  );
});
