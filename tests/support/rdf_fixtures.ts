/**
 * Test graphs covering what RDF syntaxes get wrong: language tags, datatypes, blank
 * nodes, lists, unicode beyond the BMP, escapes, a 100 KB literal, several subjects.
 *
 * Each fixture is parsed once by N3.js straight from its Turtle source (not through the
 * service's parser), so it is an independent reference. {@link canonicalNQuads} gives the
 * RDFC-1.0 form used to compare graphs up to blank node renaming.
 */
// @ts-types="@types/n3"
import { DataFactory, Parser, type Quad } from "n3";
import canonize from "rdf-canonize";

/** One test graph. */
export interface RdfFixture {
  name: string;
  /** The graph as Turtle, when it was written as Turtle. */
  turtle?: string;
  quads: Quad[];
  /** False when XML 1.0 cannot carry the graph (control characters in literals). */
  xmlSafe: boolean;
  /**
   * True when literals use non-canonical lexical forms (`"007"^^xsd:integer`). They are
   * distinct RDF terms and must survive; oxigraph's Store canonicalises them on load.
   */
  nonCanonicalLexicalForms?: boolean;
}

const PREFIXES = `@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
`;

function fromTurtle(name: string, body: string, xmlSafe = true): RdfFixture {
  const turtle = PREFIXES + body;
  return { name, turtle, quads: new Parser({ format: "text/turtle" }).parse(turtle), xmlSafe };
}

/** Language-tagged strings, mixed case tags, the same text in several languages. */
export const languageTags = fromTurtle(
  "language tags",
  `ex:greeting ex:label "Hello"@en, "Hello"@en-GB, "Bonjour"@fr, "Grüezi"@de-CH-1996,
    "Hello", "שלום"@he ;
  ex:note "plain" .`,
);

/** Common XSD datatypes, non-canonical lexical forms, a custom datatype. */
export const datatypes: RdfFixture = {
  ...fromTurtle(
    "datatypes",
    `ex:thing ex:int 42 ; ex:negative -7 ;
  ex:big "123456789012345678901234567890"^^xsd:integer ;
  ex:leadingZeros "007"^^xsd:integer ;
  ex:decimal 3.14 ; ex:decimalZero "1.0"^^xsd:decimal ;
  ex:double 1.5E3 ; ex:notANumber "NaN"^^xsd:double ; ex:infinity "-INF"^^xsd:double ;
  ex:yes true ; ex:no "false"^^xsd:boolean ; ex:one "1"^^xsd:boolean ;
  ex:when "2024-02-29T12:30:00Z"^^xsd:dateTime ;
  ex:whenOffset "2024-02-29T12:30:00.123+05:30"^^xsd:dateTime ;
  ex:day "2024-02-29"^^xsd:date ;
  ex:custom "a-b-c"^^ex:MyType ;
  ex:customEmpty ""^^ex:MyType ;
  ex:explicitString "s"^^xsd:string ;
  ex:html "<b>bold</b>"^^rdf:HTML ;
  ex:json "{\\"a\\":1}"^^rdf:JSON .`,
  ),
  nonCanonicalLexicalForms: true,
};

/** Nested, shared and cyclic blank nodes, a blank node pointing at itself. */
export const blankNodes = fromTurtle(
  "blank nodes",
  `ex:alice ex:address [ ex:street "1 Main St" ; ex:geo [ ex:lat 1.5 ; ex:long -2.25 ] ] ;
  ex:knows _:bob ; ex:self ex:alice .
_:bob ex:name "Bob" ; ex:knows _:carol .
_:carol ex:name "Carol" ; ex:knows _:bob .
_:loop ex:next _:loop .
[] a ex:Anonymous ; ex:value "root blank node" .`,
);

/** RDF collections: nested, empty, mixed members. */
export const lists = fromTurtle(
  "lists",
  `ex:list ex:items ( "a" "b" ex:c ( 1 2 ) [ ex:p "in list" ] ) ;
  ex:empty () ;
  ex:single ( "only" ) .`,
);

/** Non-ASCII text and IRIs, including characters outside the Basic Multilingual Plane. */
export const unicode = fromTurtle(
  "unicode",
  `ex:ünïcödé ex:name "日本語テキスト", "Ελληνικά", "emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "\\U0001F600\\u00e9 escaped" ;
  ex:名前 "namae" ;
  ex:rtl "עברית"@he .
<http://example.org/路径/資源> ex:p "x" ; ex:q <http://example.org/ﬁle#𝒳> .`,
);

/** Characters that must be escaped somewhere: quotes, backslashes, line breaks, XML. */
export const escapes = fromTurtle(
  "escapes",
  `ex:esc ex:quote "She said \\"hi\\" and 'bye'" ;
  ex:backslash "C:\\\\path\\\\to\\\\file" ;
  ex:newline "line1\\nline2\\n" ;
  ex:tab "a\\tb" ;
  ex:carriageReturn "a\\r\\nb\\rc" ;
  ex:xmlish "<tag attr='1' other=\\"2\\">&amp; ]]> </tag>" ;
  ex:multiline """triple
quoted "with" quotes""" ;
  ex:padded "  padded  " ;
  ex:onlySpaces "   " ;
  ex:onlyNewline "\\n" ;
  ex:empty "" ;
  ex:emptyLang ""@en ;
  ex:hashes "# not a comment" ;
  ex:iriLike <http://example.org/a?b=c&d=e#f> .`,
);

/** Control characters: valid RDF, but XML 1.0 has no way to write them. */
export const controlCharacters = fromTurtle(
  "control characters",
  `ex:ctrl ex:text "bell\\u0007 escape\\u001B delete\\u007F nul\\u0000 end" .`,
  false,
);

function makeLongText(): string {
  const line = 'Lorem ipsum dolor sit amet, ünïcödé 😀 "quoted" \\ back <xml> & amp\n';
  let text = "";
  while (text.length < 100 * 1024) text += line;
  return text;
}

/** A literal of 100 KB with line breaks, quotes and non-BMP characters. */
export const longLiteral: RdfFixture = {
  name: "100 KB literal",
  quads: [
    DataFactory.quad(
      DataFactory.namedNode("http://example.org/long"),
      DataFactory.namedNode("http://example.org/text"),
      DataFactory.literal(makeLongText()),
    ),
    DataFactory.quad(
      DataFactory.namedNode("http://example.org/long"),
      DataFactory.namedNode("http://example.org/size"),
      DataFactory.literal(
        "102400",
        DataFactory.namedNode("http://www.w3.org/2001/XMLSchema#integer"),
      ),
    ),
  ],
  xmlSafe: true,
};

/** Several linked subjects, types, URN subjects, hash and slash namespaces. */
export const multiSubject = fromTurtle(
  "multi-subject",
  `ex:doc1 a ex:Document, ex:Item ; ex:title "Doc 1" ; ex:author ex:alice ;
  ex:related ex:doc2 .
ex:doc2 a ex:Document ; ex:title "Doc 2" ; ex:author ex:bob .
ex:alice a ex:Person ; ex:name "Alice" .
ex:bob a ex:Person ; ex:name "Bob" ; a _:someClass .
<urn:isbn:0451450523> ex:title "urn subject" ;
  <http://example.org/vocab#hash> "fragment predicate" ;
  <urn:example:prop> "urn predicate" ;
  <http://example.org/terms/with.dot> "dotted local name" .`,
);

/** Every fixture XML 1.0 can carry. */
export const xmlSafeFixtures: RdfFixture[] = [
  languageTags,
  datatypes,
  blankNodes,
  lists,
  unicode,
  escapes,
  longLiteral,
  multiSubject,
];

/** Every fixture. */
export const allFixtures: RdfFixture[] = [...xmlSafeFixtures, controlCharacters];

/**
 * The RDFC-1.0 canonical N-Quads of a graph, after removing duplicate quads (rdf-canonize
 * keeps duplicates when given quads). Equal strings mean isomorphic graphs. Language tags
 * are lower-cased, as canonical N-Quads has them (rdf-canonize writes them as given): the
 * service keeps tags as written, which tests of the case check apart.
 */
export async function canonicalNQuads(quads: Iterable<object>): Promise<string> {
  const unique = new Map<string, Quad>();
  for (const quad of quads) {
    // Any RDF/JS quad (oxigraph's; jsonld's, which lack `termType`) becomes an N3.js one.
    const rdfJs = "termType" in quad ? quad : { ...quad, termType: "Quad" };
    let copy = DataFactory.fromQuad(rdfJs as Quad) as Quad;
    const object = copy.object;
    if (object.termType === "Literal" && object.language) {
      // N3.js's factory lower-cases the tag.
      const lower = DataFactory.literal(object.value, object.language.toLowerCase());
      copy = DataFactory.quad(copy.subject, copy.predicate, lower, copy.graph);
    }
    unique.set(
      JSON.stringify([copy.subject.id, copy.predicate.id, copy.object.id, copy.graph.id]),
      copy,
    );
  }
  // Test graphs are small; symmetric blank nodes need more than the default work factor.
  return await canonize.canonize([...unique.values()], {
    algorithm: "RDFC-1.0",
    maxWorkFactor: 3,
  });
}

/** Reads a byte stream to the end as UTF-8 text. */
export async function streamText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}
