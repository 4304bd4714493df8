/**
 * rdf:XMLLiteral values in exclusive canonical XML (with comments, no inclusive prefixes),
 * the form RDF 1.1 gives their lexical space: RDF/XML's `rdf:parseType="Literal"` hands
 * over every namespace in scope, and a Turtle or JSON-LD literal may be written any way
 * XML allows. Canonical, equal XML values are equal literals, so hashes, comparisons and
 * every download agree.
 *
 * The fragment is parsed with @xmldom/xmldom and canonicalised with xml-crypto's
 * exclusive canonicalisation. A fragment that is not well-formed XML is an ill-typed
 * literal, which RDF allows: it is kept exactly as sent. So is one holding a processing
 * instruction, which xml-crypto would write as text.
 */
// @ts-types="@types/n3"
import { DataFactory, type Quad } from "n3";
// @ts-types="./xmldom.d.ts"
import { DOMParser } from "@xmldom/xmldom";
import { ExclusiveCanonicalizationWithComments } from "xml-crypto";

export const RDF_XML_LITERAL = "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral";

/** Wraps the fragment: XML content may hold several elements and text, a document one. */
const WRAPPER = "rcs-xml-literal";

/** The canonical form of an XML fragment, or undefined when it is to be kept as it is. */
export function canonicalXmlLiteral(fragment: string): string | undefined {
  // The wrapper is opened and closed by us: a fragment that closes it early is not content.
  if (fragment.includes(WRAPPER) || fragment.includes("<?")) return undefined;
  let wellFormed = true;
  const parser = new DOMParser({
    locator: {},
    // Anything xmldom would repair (an unclosed tag, an unknown entity) is not well-formed.
    errorHandler: () => {
      wellFormed = false;
    },
  });
  let wrapper;
  try {
    wrapper = parser.parseFromString(`<${WRAPPER}>${fragment}</${WRAPPER}>`, "text/xml")
      .documentElement;
  } catch {
    return undefined;
  }
  if (!wellFormed || !wrapper || wrapper.nodeName !== WRAPPER) return undefined;
  const canonicalizer = new ExclusiveCanonicalizationWithComments();
  let canonical = "";
  try {
    for (let i = 0; i < wrapper.childNodes.length; i++) {
      canonical += canonicalizer.processInner(wrapper.childNodes[i], [], "", {}, []);
    }
  } catch {
    return undefined;
  }
  return canonical;
}

/** The quads with every well-formed rdf:XMLLiteral object in canonical form. */
export function canonicalXmlLiterals(quads: Quad[]): Quad[] {
  return quads.map((quad) => {
    const object = quad.object;
    if (object.termType !== "Literal" || object.datatype.value !== RDF_XML_LITERAL) return quad;
    const canonical = canonicalXmlLiteral(object.value);
    if (canonical === undefined || canonical === object.value) return quad;
    return DataFactory.quad(
      quad.subject,
      quad.predicate,
      DataFactory.literal(canonical, object.datatype),
      quad.graph,
    );
  });
}
