/**
 * A streaming RDF/XML writer: one `rdf:Description` per run of one subject, one property
 * element per triple.
 *
 * Namespaces are declared on `rdf:RDF`: the caller's prefixes plus the namespaces of the
 * predicates met in a bounded look-ahead (the first {@link LOOKAHEAD_QUADS} quads). A
 * predicate whose namespace shows up later is written with a namespace declaration on its
 * own element, so the writer never needs the whole graph. A predicate IRI that cannot be
 * split into namespace + NCName (one ending in `/`, `#`, a digit run after a `/`, …) has
 * no RDF/XML form, nor has a literal with a character XML 1.0 cannot hold (most C0
 * controls): writing either throws an {@link InexpressibleError}, and
 * {@link checkRdfXmlQuad} finds them without writing, for the routes' check up front.
 */
import type { Quad, Term } from "n3";
import { isAbsoluteIri } from "../iri.ts";
import { portableBlankLabel } from "./blank_labels.ts";
import { describeTerm, InexpressibleError } from "./inexpressible.ts";
import {
  assertDefaultGraph,
  type QuadWriter,
  type TextSink,
  type WriterOptions,
} from "./text_sink.ts";

const RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";
const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/** Quads held back to collect namespaces for the root element: bounded memory. */
export const LOOKAHEAD_QUADS = 1024;

/** RDF names that RDF/XML reserves for its syntax: no property element may use them. */
const RESERVED_RDF_NAMES = new Set([
  "RDF",
  "ID",
  "about",
  "parseType",
  "resource",
  "nodeID",
  "datatype",
  "Description",
  "aboutEach",
  "aboutEachPrefix",
  "bagID",
  "li",
]);

const NAME_START =
  "A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF" +
  "\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD" +
  "\\u{10000}-\\u{EFFFF}";
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
/** The longest NCName that ends the IRI: the local name of a property element. */
const TRAILING_NCNAME = new RegExp(`[${NAME_START}][${NAME_CHAR}]*$`, "u");
const NCNAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`, "u");

/** Characters XML 1.0 cannot carry, not even as character references. */
const NOT_XML_CHAR =
  // deno-lint-ignore no-control-regex -- the control characters are what is refused
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TEXT_SPECIAL = /[&<>\r]/g;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "\t": "&#9;",
  "\n": "&#10;",
  // A raw CR would be normalised to LF by every XML parser.
  "\r": "&#13;",
};

function checkXmlChars(value: string, kind: "iri" | "literal"): void {
  const found = NOT_XML_CHAR.exec(value);
  if (found) {
    const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw new InexpressibleError(
      "RDF/XML",
      describeTerm(kind, value),
      `it holds U+${code}, a character XML 1.0 cannot carry, not even as a reference`,
    );
  }
}

function escapeText(value: string): string {
  checkXmlChars(value, "literal");
  return value.replace(TEXT_SPECIAL, (c) => ENTITIES[c]);
}

function escapeAttribute(value: string): string {
  checkXmlChars(value, "iri");
  return value.replace(ATTRIBUTE_SPECIAL, (c) => ENTITIES[c]);
}

/** A predicate IRI split for a property element name. */
interface QualifiedName {
  namespace: string;
  local: string;
}

/** Splits a predicate IRI into namespace + NCName, or throws when RDF/XML cannot name it. */
function splitPredicateIri(iri: string): QualifiedName {
  const match = TRAILING_NCNAME.exec(iri);
  const cannot = (why: string) =>
    new InexpressibleError("RDF/XML", describeTerm("iri", iri), `as a predicate, ${why}`);
  if (!match || match.index === 0) {
    throw cannot(
      "it cannot be split into a namespace and an XML name (it must end in a name such as " +
        "`title`, not in `/`, `#`, `:`, `@`, a digit or `%xx`)",
    );
  }
  const namespace = iri.slice(0, match.index);
  const local = match[0];
  if (namespace === RDF_NS && RESERVED_RDF_NAMES.has(local)) {
    throw cannot("RDF/XML reserves that name for its syntax");
  }
  if (namespace.startsWith(XML_NS) || namespace.startsWith(XMLNS_NS)) {
    throw cannot("its namespace is reserved by XML");
  }
  return { namespace, local };
}

/**
 * Throws the {@link InexpressibleError} that writing `quad` as RDF/XML would, without
 * writing it: the check a route makes over a large item before it sends a byte.
 */
export function checkRdfXmlQuad(quad: Quad): void {
  splitPredicateIri(quad.predicate.value);
  for (const term of [quad.subject, quad.object]) {
    if (term.termType === "NamedNode") checkXmlChars(term.value, "iri");
    if (term.termType === "Literal") {
      checkXmlChars(term.value, "literal");
      checkXmlChars(term.datatype.value, "iri");
    }
  }
}

/** Whether a prefix can be declared with `xmlns:` and bound to `namespace`. */
function isDeclarablePrefix(prefix: string, namespace: string): boolean {
  return NCNAME.test(prefix) && !/^xml/i.test(prefix) &&
    (prefix === "rdf") === (namespace === RDF_NS) && isAbsoluteIri(namespace);
}

class RdfXmlWriter implements QuadWriter {
  readonly #sink: TextSink;
  /** Namespace IRI → prefix declared on `rdf:RDF`. */
  readonly #prefixes = new Map<string, string>([[RDF_NS, "rdf"]]);
  /** Quads seen before the root element is written; undefined once it is. */
  #pending: Quad[] | undefined = [];
  #subject: Term | undefined;
  /** Predicate splits are cached: a graph uses few predicates many times. */
  readonly #names = new Map<string, QualifiedName>();

  constructor(sink: TextSink, options: WriterOptions) {
    this.#sink = sink;
    for (const [prefix, namespace] of Object.entries(options.prefixes ?? {})) {
      // Prefixes that XML cannot declare are skipped: generated ones take their place.
      if (isDeclarablePrefix(prefix, namespace) && !this.#prefixes.has(namespace)) {
        this.#prefixes.set(namespace, prefix);
      }
    }
  }

  write(quad: Quad): void {
    assertDefaultGraph(quad, "RDF/XML");
    if (this.#pending) {
      this.#pending.push(quad);
      if (this.#pending.length >= LOOKAHEAD_QUADS) this.#writeRoot();
      return;
    }
    this.#writeQuad(quad);
  }

  end(): void {
    if (this.#pending) this.#writeRoot();
    if (this.#subject) this.#sink.push("  </rdf:Description>\n");
    this.#sink.push("</rdf:RDF>\n");
  }

  #writeRoot(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    const used = new Set(this.#prefixes.values());
    let counter = 0;
    for (const quad of pending) {
      const { namespace } = this.#split(quad.predicate.value);
      if (this.#prefixes.has(namespace)) continue;
      let prefix: string;
      do prefix = `ns${counter++}`; while (used.has(prefix));
      used.add(prefix);
      this.#prefixes.set(namespace, prefix);
    }
    let root = '<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF';
    for (const [namespace, prefix] of this.#prefixes) {
      root += `\n    xmlns:${prefix}="${escapeAttribute(namespace)}"`;
    }
    this.#sink.push(`${root}>\n`);
    for (const quad of pending) this.#writeQuad(quad);
  }

  #split(iri: string): QualifiedName {
    let name = this.#names.get(iri);
    if (!name) {
      name = splitPredicateIri(iri);
      if (this.#names.size >= 4096) this.#names.clear();
      this.#names.set(iri, name);
    }
    return name;
  }

  #writeQuad(quad: Quad): void {
    const { subject, predicate, object } = quad;
    if (!this.#subject || !subject.equals(this.#subject)) {
      if (this.#subject) this.#sink.push("  </rdf:Description>\n");
      this.#subject = subject;
      this.#sink.push(`  <rdf:Description ${nodeAttribute("about", subject)}>\n`);
    }
    const { namespace, local } = this.#split(predicate.value);
    const prefix = this.#prefixes.get(namespace);
    // A namespace first met after the look-ahead is declared on the element itself.
    const element = prefix === undefined ? `ns:${local}` : `${prefix}:${local}`;
    const declaration = prefix === undefined ? ` xmlns:ns="${escapeAttribute(namespace)}"` : "";
    this.#sink.push(`    <${element}${declaration}${propertyContent(object, element)}\n`);
  }
}

/** `rdf:about="…"` (or `rdf:resource`) for an IRI, `rdf:nodeID="…"` for a blank node. */
function nodeAttribute(iriAttribute: "about" | "resource", node: Term): string {
  switch (node.termType) {
    case "NamedNode":
      return `rdf:${iriAttribute}="${escapeAttribute(node.value)}"`;
    case "BlankNode":
      return `rdf:nodeID="${portableBlankLabel(node.value)}"`;
    default:
      throw new TypeError(`A ${node.termType} term cannot be written as RDF/XML`);
  }
}

/** The rest of a property element after its name: attributes, content, end tag. */
function propertyContent(object: Term, element: string): string {
  if (object.termType !== "Literal") return ` ${nodeAttribute("resource", object)}/>`;
  let attributes = "";
  if (object.language) {
    attributes = ` xml:lang="${escapeAttribute(object.language)}"`;
  } else if (object.datatype.value !== XSD_STRING) {
    attributes = ` rdf:datatype="${escapeAttribute(object.datatype.value)}"`;
  }
  return `${attributes}>${escapeText(object.value)}</${element}>`;
}

/** An RDF/XML writer; `options.prefixes` name namespaces on the root element. */
export function createRdfXmlWriter(sink: TextSink, options: WriterOptions): QuadWriter {
  return new RdfXmlWriter(sink, options);
}
