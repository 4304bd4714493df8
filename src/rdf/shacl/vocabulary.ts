/**
 * The IRIs SHACL generation reads from the data and writes into the shapes.
 *
 * @module
 */

/** The RDF namespace. */
export const RDF_NAMESPACE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/** The RDF Schema namespace. */
export const RDFS_NAMESPACE = "http://www.w3.org/2000/01/rdf-schema#";
/** The SHACL namespace. */
export const SH_NAMESPACE = "http://www.w3.org/ns/shacl#";
/** The XML Schema datatypes namespace. */
export const XSD_NAMESPACE = "http://www.w3.org/2001/XMLSchema#";

/** `rdf:type`: the only source of class membership. */
export const RDF_TYPE = `${RDF_NAMESPACE}type`;
/** `rdfs:subClassOf`: SHACL counts instances of subclasses as instances of the class. */
export const RDFS_SUB_CLASS_OF = `${RDFS_NAMESPACE}subClassOf`;

/** Datatypes of language-tagged strings (RDF 1.1, and RDF 1.2 with a base direction). */
export const LANGUAGE_DATATYPES: ReadonlySet<string> = new Set([
  `${RDF_NAMESPACE}langString`,
  `${RDF_NAMESPACE}dirLangString`,
]);

/** The SHACL terms the generated shapes use. */
export const SH = {
  NodeShape: `${SH_NAMESPACE}NodeShape`,
  PropertyShape: `${SH_NAMESPACE}PropertyShape`,
  targetClass: `${SH_NAMESPACE}targetClass`,
  property: `${SH_NAMESPACE}property`,
  path: `${SH_NAMESPACE}path`,
  nodeKind: `${SH_NAMESPACE}nodeKind`,
  datatype: `${SH_NAMESPACE}datatype`,
  class: `${SH_NAMESPACE}class`,
  minCount: `${SH_NAMESPACE}minCount`,
  maxCount: `${SH_NAMESPACE}maxCount`,
  languageIn: `${SH_NAMESPACE}languageIn`,
  uniqueLang: `${SH_NAMESPACE}uniqueLang`,
  or: `${SH_NAMESPACE}or`,
  IRI: `${SH_NAMESPACE}IRI`,
  BlankNode: `${SH_NAMESPACE}BlankNode`,
  Literal: `${SH_NAMESPACE}Literal`,
  BlankNodeOrIRI: `${SH_NAMESPACE}BlankNodeOrIRI`,
  IRIOrLiteral: `${SH_NAMESPACE}IRIOrLiteral`,
  BlankNodeOrLiteral: `${SH_NAMESPACE}BlankNodeOrLiteral`,
} as const;
