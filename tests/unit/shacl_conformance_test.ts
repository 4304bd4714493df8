import { strict as assert } from "node:assert";
import { DataFactory, type Quad, type Term } from "n3";
import { generateShacl } from "../../src/rdf/shacl/generate.ts";
import {
  BLANK_NODES,
  CLASHING_LOCAL_NAMES,
  IRI_VALUES_OF_ONE_CLASS,
  LANGUAGE_TAGS,
  MIXED_DATATYPES,
  MULTIPLE_CLASSES,
  OPTIONAL_AND_MANDATORY,
  parseTurtle,
  RDF,
  sh,
  SHAPES_NAMESPACE,
  ShapesGraph,
  SUBCLASSES,
  validate,
} from "../support/shacl_datasets.ts";

const DATASETS = {
  MIXED_DATATYPES,
  LANGUAGE_TAGS,
  OPTIONAL_AND_MANDATORY,
  IRI_VALUES_OF_ONE_CLASS,
  BLANK_NODES,
  MULTIPLE_CLASSES,
  CLASHING_LOCAL_NAMES,
  SUBCLASSES,
};

interface CardinalityCase {
  readonly propertyShape: string;
  readonly instance: Term;
  readonly path: Term;
}

/** For every property shape of every targeted node shape: its path and the direct instances. */
function cardinalityCases(shapes: ShapesGraph, data: readonly Quad[]) {
  const mandatory: CardinalityCase[] = [];
  const singleValued: CardinalityCase[] = [];
  for (const targeting of shapes.store.getQuads(null, sh("targetClass"), null, null)) {
    const instances = data
      .filter((quad) =>
        quad.predicate.value === `${RDF}type` && quad.object.equals(targeting.object)
      )
      .map((quad) => quad.subject);
    for (const propertyShape of shapes.store.getObjects(targeting.subject, sh("property"), null)) {
      const [path] = shapes.store.getObjects(propertyShape, sh("path"), null);
      const has = (term: string) =>
        shapes.store.getObjects(propertyShape, sh(term), null).length > 0;
      const withValue = instances.find((instance) =>
        data.some((quad) => quad.subject.equals(instance) && quad.predicate.equals(path))
      );
      if (withValue === undefined) continue;
      const found = { propertyShape: propertyShape.value, instance: withValue, path };
      if (has("minCount")) mandatory.push(found);
      if (has("maxCount")) singleValued.push(found);
    }
  }
  return { mandatory, singleValued };
}

for (const [name, turtle] of Object.entries(DATASETS)) {
  Deno.test(`${name}: the data conforms, and breaking any cardinality breaks conformance`, async () => {
    const data = parseTurtle(turtle);
    const shapes = new ShapesGraph(generateShacl(data, SHAPES_NAMESPACE));
    const outcome = await validate(shapes, data);
    assert.deepEqual(outcome.components, []);
    assert.equal(outcome.conforms, true);

    const { mandatory, singleValued } = cardinalityCases(shapes, data);
    assert.ok(mandatory.length > 0, "every dataset has a mandatory property");
    for (const { propertyShape, instance, path } of mandatory) {
      const broken = data.filter((quad) =>
        !(quad.subject.equals(instance) && quad.predicate.equals(path))
      );
      const result = await validate(shapes, broken);
      assert.equal(result.conforms, false, `${propertyShape} without a value on ${instance.value}`);
      assert.ok(result.components.includes("MinCountConstraintComponent"));
    }
    for (const { propertyShape, instance, path } of singleValued) {
      const values = data.filter((quad) => quad.predicate.equals(path)).map((quad) => quad.object);
      const own = data.find((quad) =>
        quad.subject.equals(instance) && quad.predicate.equals(path)
      )!;
      const other = values.find((value) => !value.equals(own.object));
      if (other === undefined) continue;
      const broken = [
        ...data,
        DataFactory.quad(instance as Quad["subject"], path as Quad["predicate"], other),
      ];
      const result = await validate(shapes, broken);
      assert.equal(
        result.conforms,
        false,
        `${propertyShape} with a second value on ${instance.value}`,
      );
      assert.ok(result.components.includes("MaxCountConstraintComponent"));
    }
  });
}
