/**
 * SHACL shapes from RDF data, as data-to-shapes tools make them: one node shape per class
 * with instances, one property shape per (class, predicate), each constraint as tight as
 * the data allows while the data still conforms.
 *
 * @module
 */
import type { Quad } from "n3";
import { compareStrings } from "./compare_strings.ts";
import { assignLocalNames } from "./local_names.ts";
import { declarePrefixes, namespaceOf } from "./prefixes.ts";
import { type ClassProfile, profileClasses, type PropertyProfile } from "./profile.ts";
import {
  createIriFormatter,
  escapeLocalName,
  irisOf,
  type PrefixDeclaration,
  type TurtleBlock,
  type TurtleObject,
  type TurtleStatement,
  writeTurtle,
} from "./turtle.ts";
import {
  LANGUAGE_DATATYPES,
  RDF_NAMESPACE,
  RDF_TYPE,
  SH,
  SH_NAMESPACE,
  XSD_NAMESPACE,
} from "./vocabulary.ts";

/** Prefix under which the caller's namespace is declared. */
const SHAPE_PREFIX = "shape";
/** Names of the `sh:or` branch for IRI and blank-node values; datatypes never take them. */
const NODE_BRANCH_NAMES = { iri: "IRI", blankNode: "BlankNode", both: "BlankNodeOrIRI" };

/**
 * Generates SHACL shapes for `quads` as readable Turtle.
 *
 * Shape IRIs are `{namespace}{Class}`, `{namespace}{Class}/{predicate}` and, for `sh:or`
 * branches, `{namespace}{Class}/{predicate}/{datatype}`, with `namespace` used exactly as
 * given (the caller has checked it is an absolute IRI). The same graph always gives the
 * same bytes, whatever the triple order or blank-node labels. Data without `rdf:type`
 * yields a document with only prefixes and a comment saying so.
 */
export function generateShacl(quads: Quad[], namespace: string): string {
  const profiles = profileClasses(quads);
  const blocks = buildShapeBlocks(profiles, namespace);
  const fixed: PrefixDeclaration[] = [
    { prefix: "rdf", namespace: RDF_NAMESPACE },
    { prefix: "sh", namespace: SH_NAMESPACE },
    { prefix: SHAPE_PREFIX, namespace },
    { prefix: "xsd", namespace: XSD_NAMESPACE },
  ];
  const header = blocks.length === 0
    ? ["No typed instances (rdf:type) were found in the data: no shapes were generated."]
    : [
      `SHACL shapes generated from RDF data: ${profiles.length} node shape(s), one per class`,
      "with instances, and one property shape per (class, predicate) as observed.",
    ];
  return writeTurtle({
    header,
    prefixes: declarePrefixes(dataNamespaces(blocks, fixed), fixed),
    blocks,
  });
}

/** Namespaces worth a prefix: those of IRIs the fixed prefixes do not already shorten. */
function dataNamespaces(blocks: readonly TurtleBlock[], fixed: PrefixDeclaration[]): string[] {
  const shortenWithFixed = createIriFormatter(fixed);
  const namespaces: string[] = [];
  for (const iri of irisOf(blocks)) {
    if (!shortenWithFixed(iri).startsWith("<")) continue;
    const namespace = namespaceOf(iri);
    if (namespace === undefined) continue;
    if (escapeLocalName(iri.slice(namespace.length)) !== undefined) namespaces.push(namespace);
  }
  return namespaces;
}

/** Names every shape, then lays out each node shape followed by its property shapes. */
function buildShapeBlocks(profiles: readonly ClassProfile[], namespace: string): TurtleBlock[] {
  const classNames = assignLocalNames(profiles.map((profile) => profile.classIri));
  const properties = profiles.flatMap((profile) => profile.properties);
  const predicateNames = assignLocalNames(properties.map((property) => property.predicate));
  const datatypeNames = assignLocalNames(
    properties.flatMap((property) => property.datatypes),
    Object.values(NODE_BRANCH_NAMES),
  );
  const byName = [...profiles].sort((a, b) =>
    compareStrings(classNames.get(a.classIri)!, classNames.get(b.classIri)!)
  );

  const blocks: TurtleBlock[] = [];
  for (const profile of byName) {
    const nodeShape = `${namespace}${classNames.get(profile.classIri)}`;
    const propertyShapes = profile.properties
      .map((property) => ({
        property,
        iri: `${nodeShape}/${predicateNames.get(property.predicate)}`,
      }))
      .sort((a, b) => compareStrings(a.iri, b.iri));
    const statements: TurtleStatement[] = [
      statement(RDF_TYPE, iri(SH.NodeShape)),
      statement(SH.targetClass, iri(profile.classIri)),
    ];
    if (propertyShapes.length > 0) {
      statements.push({
        predicate: SH.property,
        objects: propertyShapes.map((shape) => iri(shape.iri)),
      });
    }
    const count = profile.instanceCount;
    blocks.push({
      comment: [`${count} instance${count === 1 ? "" : "s"} of `, { iri: profile.classIri }],
      subject: nodeShape,
      statements,
    });
    for (const shape of propertyShapes) {
      blocks.push(...propertyShapeBlocks(shape.iri, shape.property, count, datatypeNames));
    }
  }
  return blocks;
}

/** One acceptable kind of value: a datatype, or IRIs and blank nodes. */
interface ValueBranch {
  readonly name: string;
  readonly nodeKind?: string;
  readonly constraints: TurtleStatement[];
}

function propertyShapeBlocks(
  shapeIri: string,
  property: PropertyProfile,
  instanceCount: number,
  datatypeNames: ReadonlyMap<string, string>,
): TurtleBlock[] {
  const statements: TurtleStatement[] = [
    statement(RDF_TYPE, iri(SH.PropertyShape)),
    statement(SH.path, iri(property.predicate)),
  ];
  const branchBlocks: TurtleBlock[] = [];
  // A quoted triple (RDF-star) fits no node kind: leave the values unconstrained.
  if (property.otherValues === 0) {
    const nodeKind = nodeKindOf(property);
    if (nodeKind) statements.push(statement(SH.nodeKind, iri(nodeKind)));
    const branches = valueBranches(property, datatypeNames);
    if (branches.length === 1) {
      statements.push(...branches[0].constraints);
    } else {
      const branchIris = branches.map((branch) => `${shapeIri}/${branch.name}`);
      statements.push(statement(SH.or, { kind: "list", items: branchIris.map(iri) }));
      branches.forEach((branch, index) => {
        const branchStatements = [statement(RDF_TYPE, iri(SH.NodeShape))];
        if (branch.nodeKind) branchStatements.push(statement(SH.nodeKind, iri(branch.nodeKind)));
        branchStatements.push(...branch.constraints);
        branchBlocks.push({ subject: branchIris[index], statements: branchStatements });
      });
    }
  }
  if (property.subjectCount === instanceCount) {
    statements.push(statement(SH.minCount, { kind: "integer", value: 1 }));
  }
  if (!property.multiValued) {
    statements.push(statement(SH.maxCount, { kind: "integer", value: 1 }));
  }
  if (property.languages.length > 0 && !property.repeatedLanguage) {
    statements.push(statement(SH.uniqueLang, { kind: "boolean", value: true }));
  }
  return [{ subject: shapeIri, statements }, ...branchBlocks];
}

/**
 * The kinds of value a property takes, sorted by name. Language tags go with the
 * language-string datatype: `sh:languageIn` rejects any value without a tag.
 */
function valueBranches(
  property: PropertyProfile,
  datatypeNames: ReadonlyMap<string, string>,
): ValueBranch[] {
  const branches: ValueBranch[] = property.datatypes.map((datatype) => {
    const constraints = [statement(SH.datatype, iri(datatype))];
    if (LANGUAGE_DATATYPES.has(datatype) && property.languages.length > 0) {
      const tags = property.languages.map((tag): TurtleObject => ({ kind: "string", value: tag }));
      constraints.push(statement(SH.languageIn, { kind: "list", items: tags }));
    }
    return { name: datatypeNames.get(datatype)!, constraints };
  });
  const hasIris = property.iriValues > 0;
  const hasBlankNodes = property.blankNodeValues > 0;
  if (hasIris || hasBlankNodes) {
    const constraints = property.valueClasses.length > 0
      ? [{ predicate: SH.class, objects: property.valueClasses.map(iri) }]
      : [];
    branches.push(
      hasIris && hasBlankNodes
        ? { name: NODE_BRANCH_NAMES.both, nodeKind: SH.BlankNodeOrIRI, constraints }
        : hasIris
        ? { name: NODE_BRANCH_NAMES.iri, nodeKind: SH.IRI, constraints }
        : { name: NODE_BRANCH_NAMES.blankNode, nodeKind: SH.BlankNode, constraints },
    );
  }
  return branches.sort((a, b) => compareStrings(a.name, b.name));
}

/** The narrowest `sh:nodeKind` covering every value; none when all three kinds occur. */
function nodeKindOf(property: PropertyProfile): string | undefined {
  const iris = property.iriValues > 0;
  const blankNodes = property.blankNodeValues > 0;
  const literals = property.literalValues > 0;
  if (iris && blankNodes && literals) return undefined;
  if (iris && blankNodes) return SH.BlankNodeOrIRI;
  if (iris && literals) return SH.IRIOrLiteral;
  if (blankNodes && literals) return SH.BlankNodeOrLiteral;
  if (iris) return SH.IRI;
  if (blankNodes) return SH.BlankNode;
  return literals ? SH.Literal : undefined;
}

function statement(predicate: string, object: TurtleObject): TurtleStatement {
  return { predicate, objects: [object] };
}

function iri(value: string): TurtleObject {
  return { kind: "iri", iri: value };
}
