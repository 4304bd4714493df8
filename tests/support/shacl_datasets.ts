/**
 * Turtle datasets for the SHACL generation tests, one per feature the shapes must capture,
 * and the helpers the tests use to read the shapes and validate data against them.
 *
 * @module
 */
import { DataFactory, Parser, Store } from "n3";
import type { Quad, Quad_Object, Term } from "n3";
import SHACLValidator from "rdf-validate-shacl";

/** Namespace the tests generate shapes into. */
export const SHAPES_NAMESPACE = "http://example.org/shapes/";

const PREFIXES = `
@prefix ex: <http://example.org/data/> .
@prefix schema: <http://schema.org/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

/**
 * `ex:value` mixes integers, decimals and strings; `ex:source` mixes IRIs and literals;
 * `ex:note` mixes language-tagged and plain strings.
 */
export const MIXED_DATATYPES = `${PREFIXES}
ex:m1 a ex:Measurement ; ex:label "first" ; ex:value 42 ; ex:source ex:sensor1 ;
  ex:note "calibrated"@en .
ex:m2 a ex:Measurement ; ex:label "second" ; ex:value 3.5 ; ex:source "manual entry" ;
  ex:note "kalibriert"@de .
ex:m3 a ex:Measurement ; ex:label "third" ; ex:value "n/a" ; ex:source ex:sensor2 ;
  ex:note "no note" .
ex:m4 a ex:Measurement ; ex:label "fourth" ; ex:value 7 .
`;

/** Titles in several languages, once per language; keywords repeat a language. */
export const LANGUAGE_TAGS = `${PREFIXES}
ex:b1 a ex:Book ; ex:isbn "111" ; ex:title "The Garden"@en, "Le Jardin"@fr ;
  ex:keyword "nature"@en, "plants"@en .
ex:b2 a ex:Book ; ex:isbn "222" ; ex:title "Der Fluss"@de ; ex:keyword "Fluss"@de .
ex:b3 a ex:Book ; ex:isbn "333" ; ex:title "The Hill"@en-GB, "La Colline"@fr .
`;

/** `ex:name` on everyone, `ex:email` on some, `ex:nickname` on everyone and repeated. */
export const OPTIONAL_AND_MANDATORY = `${PREFIXES}
ex:alice a ex:Person ; ex:name "Alice" ; ex:email "alice@example.org" ; ex:nickname "Al", "Ali" .
ex:bob a ex:Person ; ex:name "Bob" ; ex:nickname "Bobby" .
ex:carol a ex:Person ; ex:name "Carol" ; ex:email "carol@example.org" ; ex:nickname "Caro" .
`;

/**
 * Every `ex:worksFor` value is an `ex:Organization` (one is also an `ex:Company`);
 * `ex:knows` values share no class.
 */
export const IRI_VALUES_OF_ONE_CLASS = `${PREFIXES}
ex:acme a ex:Organization, ex:Company ; ex:orgName "ACME" .
ex:unesco a ex:Organization ; ex:orgName "UNESCO" .
ex:dan a ex:Employee ; ex:worksFor ex:acme ; ex:knows ex:acme .
ex:erin a ex:Employee ; ex:worksFor ex:unesco ; ex:knows ex:dan, ex:outsider .
`;

/**
 * Addresses are typed blank nodes; `ex:contact` is a blank node or an IRI; one customer is a
 * blank node itself and the only one with `ex:visitedOn`.
 */
export const BLANK_NODES = `${PREFIXES}
ex:frank a ex:Customer ; ex:address [ a ex:Address ; ex:city "Oslo" ; ex:zip "0150" ] ;
  ex:contact [ ex:phone "+47 1234" ] .
ex:grace a ex:Customer ; ex:address [ a ex:Address ; ex:city "Bergen" ] ; ex:contact ex:graceCard .
_:walkIn a ex:Customer ; ex:address [ a ex:Address ; ex:city "Tromsø" ; ex:zip "9008" ] ;
  ex:contact ex:frontDesk ; ex:visitedOn "2024-05-01"^^xsd:date .
`;

/** Some people are also employees: each class's statistics count only its own instances. */
export const MULTIPLE_CLASSES = `${PREFIXES}
ex:hank a ex:Person, ex:Employee ; ex:fullName "Hank" ; ex:salary 5000 .
ex:iris a ex:Person, ex:Employee ; ex:fullName "Iris" ; ex:salary 5200 .
ex:jack a ex:Person ; ex:fullName "Jack" .
ex:kate a ex:Employee ; ex:salary 4100 ; ex:badge "K-17" .
`;

/** Two `Person` classes and two `name` predicates from different namespaces. */
export const CLASHING_LOCAL_NAMES = `${PREFIXES}
ex:lena a schema:Person ; schema:name "Lena" ; foaf:name "Lena L." .
ex:mike a schema:Person ; schema:name "Mike" ; foaf:name "Mike M." .
ex:nina a foaf:Person ; foaf:name "Nina" .
`;

/** `ex:Dog` is a subclass of `ex:Animal`: SHACL targets dogs with the animal shape too. */
export const SUBCLASSES = `${PREFIXES}
ex:Dog rdfs:subClassOf ex:Animal .
ex:rex a ex:Dog ; ex:chipId "D-1" ; ex:owner ex:olga .
ex:tom a ex:Animal ; ex:owner ex:olga .
ex:olga a ex:Owner ; ex:pet ex:rex .
`;

/** Parses Turtle into quads. */
export function parseTurtle(turtle: string): Quad[] {
  return new Parser().parse(turtle);
}

/** Shapes parsed back from generated Turtle, with lookups by shape and SHACL term. */
export class ShapesGraph {
  /** The parsed shapes. */
  readonly store: Store;
  /** The `@prefix` declarations, prefix → namespace. */
  readonly prefixes: Record<string, string> = {};
  /** The text of every comment, without the `#`. */
  readonly comments: string[] = [];

  constructor(readonly turtle: string) {
    // n3 2.x takes an options object here; @types/n3 still describes the 1.x callbacks.
    const parser = new Parser() as unknown as {
      parse(input: string, options: Record<string, unknown>): Quad[];
    };
    const quads = parser.parse(turtle, {
      onPrefix: (prefix: string, namespace: Term) => {
        this.prefixes[prefix] = namespace.value;
      },
      onComment: (comment: string) => {
        this.comments.push(comment.trim());
      },
    });
    this.store = new Store(quads);
  }

  /** Objects of `sh:{term}` on the shape `{SHAPES_NAMESPACE}{shape}`. */
  values(shape: string, term: string): Term[] {
    return this.store.getObjects(`${SHAPES_NAMESPACE}${shape}`, sh(term), null);
  }

  /** The single value of `sh:{term}` on a shape (undefined if none; fails on several). */
  value(shape: string, term: string): string | undefined {
    const values = this.values(shape, term);
    if (values.length > 1) throw new Error(`${shape} has ${values.length} sh:${term} values`);
    return values[0]?.value;
  }

  /** Values of the RDF list in `sh:{term}` on a shape. */
  list(shape: string, term: string): string[] {
    const [head] = this.values(shape, term);
    const items: string[] = [];
    let node: Term | undefined = head;
    while (node && node.value !== `${RDF}nil`) {
      items.push(this.store.getObjects(node, `${RDF}first`, null)[0].value);
      node = this.store.getObjects(node, `${RDF}rest`, null)[0];
    }
    return items;
  }

  /** Subjects that have `rdf:type sh:{type}`. */
  subjectsOfType(type: string): string[] {
    return this.store.getSubjects(`${RDF}type`, sh(type), null).map((term: Term) => term.value)
      .sort();
  }
}

/** The outcome of a validation, reduced to what the tests assert on. */
export interface ValidationOutcome {
  readonly conforms: boolean;
  /** Local names of the constraint components that reported, e.g. `MinCountConstraintComponent`. */
  readonly components: string[];
}

/** Validates `data` against `shapes` with rdf-validate-shacl. */
export async function validate(
  shapes: ShapesGraph,
  data: readonly Quad[],
): Promise<ValidationOutcome> {
  const validator = new SHACLValidator(shapes.store);
  const report = await validator.validate(new Store([...data]));
  return {
    conforms: report.conforms,
    components: report.results.map((result) =>
      (result.sourceConstraintComponent?.value ?? "").replace(SH_NAMESPACE, "")
    ),
  };
}

/** `data` without the `predicate` values of `subject`. */
export function withoutValues(data: readonly Quad[], subject: string, predicate: string): Quad[] {
  return data.filter((quad) =>
    !(quad.subject.value === subject && quad.predicate.value === predicate)
  );
}

/** `data` plus one triple. */
export function withValue(
  data: readonly Quad[],
  subject: string,
  predicate: string,
  object: Term,
): Quad[] {
  const { namedNode, quad } = DataFactory;
  return [...data, quad(namedNode(subject), namedNode(predicate), object as Quad_Object)];
}

/** Expands `ex:`-style names used in the datasets. */
export const EX = "http://example.org/data/";
/** The schema.org namespace. */
export const SCHEMA = "http://schema.org/";
/** The FOAF namespace. */
export const FOAF = "http://xmlns.com/foaf/0.1/";
/** The XML Schema namespace. */
export const XSD = "http://www.w3.org/2001/XMLSchema#";
/** The RDF namespace. */
export const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const SH_NAMESPACE = "http://www.w3.org/ns/shacl#";

/** The full IRI of a SHACL term. */
export function sh(term: string): string {
  return `${SH_NAMESPACE}${term}`;
}
