/**
 * RDF/JSON (the RDF 1.1 JSON Alternate Serialization) to quads, and the shape test that
 * tells RDF/JSON from JSON-LD in a plain `application/json` body.
 *
 * ```json
 * { "subject": { "predicate": [ { "type": "uri" | "bnode" | "literal", "value": "…",
 *                                  "lang"?: "…", "datatype"?: "…" } ] } }
 * ```
 *
 * The writer lives in `writers/rdfjson.ts`.
 */
// @ts-types="@types/n3"
import { type BlankNode, DataFactory, type Literal, type NamedNode, type Quad } from "n3";
import { DomainError, type FieldError } from "../errors/domain_error.ts";
import { isAbsoluteIri } from "./iri.ts";

import { literal } from "./language_tags.ts";

const { namedNode, blankNode, quad: makeQuad } = DataFactory;

/** Most field errors reported for one document: the first ones are the useful ones. */
const MAX_REPORTED_ERRORS = 20;
const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;
const OBJECT_KEYS = new Set(["type", "value", "lang", "datatype"]);

/** Records a problem at a JSON Pointer path; returns undefined for `return fail(…)`. */
type Fail = (path: string, message: string) => undefined;

/** A subject term (also the term of `uri` and `bnode` objects). */
type Subject = NamedNode | BlankNode;

/** Distinguishes the blank nodes of separate documents that end up in one graph. */
let documentCounter = 0;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNodeKey(key: string): boolean {
  return key.startsWith("_:") ? key.length > 2 : isAbsoluteIri(key);
}

/**
 * Whether a parsed JSON document has the shape of RDF/JSON: an object whose keys are all
 * IRIs or blank node labels, each mapping predicate IRIs to arrays of objects with
 * `type` and `value`. Values are not validated here; {@link parseRdfJson} does that.
 */
export function looksLikeRdfJson(doc: unknown): boolean {
  if (!isPlainObject(doc)) return false;
  return Object.entries(doc).every(([subject, predicates]) =>
    isNodeKey(subject) && isPlainObject(predicates) &&
    Object.entries(predicates).every(([predicate, objects]) =>
      isAbsoluteIri(predicate) && Array.isArray(objects) &&
      objects.every((object) => isPlainObject(object) && "type" in object && "value" in object)
    )
  );
}

/** A JSON Pointer (RFC 6901) to a place in the document, for error paths. */
function pointer(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}

/**
 * Parses an RDF/JSON document (already parsed from JSON) into default-graph quads.
 *
 * Every problem is reported at its JSON Pointer path: an invalid-input `rdf-syntax` error listing
 * up to twenty of them. Language tags are lower-cased, as the other parsers do. Blank
 * node labels are renamed per document (`r<n>_<i>`), so two documents never share one.
 */
export function parseRdfJson(doc: unknown): Quad[] {
  const errors: FieldError[] = [];
  const fail: Fail = (path, message) => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push({ path, message });
    return undefined;
  };
  const quads: Quad[] = [];
  const prefix = `r${documentCounter++}_`;
  const blankNodes = new Map<string, BlankNode>();
  const node = (label: string) => {
    let term = blankNodes.get(label);
    if (!term) {
      term = blankNode(`${prefix}${blankNodes.size}`);
      blankNodes.set(label, term);
    }
    return term;
  };
  const resource = (value: string): Subject =>
    value.startsWith("_:") ? node(value) : namedNode(value);

  if (!isPlainObject(doc)) {
    fail("", "an RDF/JSON document is a JSON object keyed by subject");
  } else {
    for (const [subject, predicates] of Object.entries(doc)) {
      if (!isNodeKey(subject)) {
        fail(pointer(subject), "a subject must be an absolute IRI or _:label");
      }
      if (!isPlainObject(predicates)) {
        fail(pointer(subject), "a subject maps to an object keyed by predicate");
        continue;
      }
      for (const [predicate, objects] of Object.entries(predicates)) {
        const path = pointer(subject, predicate);
        if (!isAbsoluteIri(predicate)) fail(path, "a predicate must be an absolute IRI");
        if (!Array.isArray(objects)) {
          fail(path, "a predicate maps to an array of objects");
          continue;
        }
        objects.forEach((object, index) => {
          const term = objectTerm(object, pointer(subject, predicate, index), fail, resource);
          if (term && isNodeKey(subject) && isAbsoluteIri(predicate)) {
            quads.push(makeQuad(resource(subject), namedNode(predicate), term));
          }
        });
      }
    }
  }
  if (errors.length > 0) {
    const first = errors[0];
    throw new DomainError("rdf-syntax", {
      detail: `The RDF/JSON body is not valid at ${first.path || "/"}: ${first.message}`,
      errors,
    });
  }
  return quads;
}

/** The term of one RDF/JSON object, or undefined after reporting why it is invalid. */
function objectTerm(
  object: unknown,
  path: string,
  fail: Fail,
  resource: (value: string) => Subject,
): Subject | Literal | undefined {
  if (!isPlainObject(object)) {
    fail(path, 'an object is a JSON object with "type" and "value"');
    return undefined;
  }
  const unknown = Object.keys(object).filter((key) => !OBJECT_KEYS.has(key));
  if (unknown.length > 0) fail(path, `unknown key(s): ${unknown.join(", ")}`);
  const { type, value, lang, datatype } = object;
  if (typeof value !== "string") {
    fail(`${path}/value`, '"value" must be a string');
    return undefined;
  }
  switch (type) {
    case "uri":
      if (!isAbsoluteIri(value)) return fail(`${path}/value`, "not an absolute IRI");
      if (lang !== undefined || datatype !== undefined) {
        return fail(path, '"lang" and "datatype" belong to literals only');
      }
      return unknown.length > 0 ? undefined : resource(value);
    case "bnode":
      if (!value.startsWith("_:") || value.length < 3) {
        return fail(`${path}/value`, 'a blank node value is "_:" followed by a label');
      }
      if (lang !== undefined || datatype !== undefined) {
        return fail(path, '"lang" and "datatype" belong to literals only');
      }
      return unknown.length > 0 ? undefined : resource(value);
    case "literal":
      if (lang !== undefined && datatype !== undefined) {
        return fail(path, 'a literal has "lang" or "datatype", not both');
      }
      if (lang !== undefined) {
        if (typeof lang !== "string" || !LANGUAGE_TAG.test(lang)) {
          return fail(`${path}/lang`, "not a BCP 47 language tag");
        }
        return unknown.length > 0 ? undefined : literal(value, lang);
      }
      if (datatype !== undefined) {
        if (typeof datatype !== "string" || !isAbsoluteIri(datatype)) {
          return fail(`${path}/datatype`, "not an absolute IRI");
        }
        return unknown.length > 0 ? undefined : literal(value, namedNode(datatype));
      }
      return unknown.length > 0 ? undefined : literal(value);
    default:
      return fail(`${path}/type`, '"type" must be "uri", "bnode" or "literal"');
  }
}
