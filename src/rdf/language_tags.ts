/**
 * Language tags kept as written. RDF compares tags case-insensitively (BCP 47), but a user
 * who wrote `"colour"@en-US` expects `en-US` back, not `en-us`. N3.js lower-cases a tag
 * twice: its factory's `literal()` writes it lower-cased into the term id, and
 * `Literal.language` lower-cases what it reads from the id. The service makes its literals
 * here instead: the id holds the tag as written (so the stores keep it), and `language`
 * answers it so (so every writer prints it).
 *
 * Oxigraph (RDF/XML parsing, the embedded SPARQL fallback, initialise rules) lower-cases
 * tags internally; {@link TagSpellings} gives such answers back the spelling of the data
 * they came from. The canonical form hashed (RDFC-1.0 over RDF 1.2 canonical N-Quads) has
 * tags in lower case: {@link lowerCaseTag}.
 */
// @ts-types="@types/n3"
import { DataFactory, Literal, type Quad, type Term, termFromId as n3TermFromId } from "n3";

/** An N3.js literal whose `language` is its tag as written in its id. */
class WrittenTagLiteral extends Literal {}

// The typings declare `language` a property; N3.js defines it as a getter, replaced here.
Object.defineProperty(WrittenTagLiteral.prototype, "language", {
  get(this: Literal): string {
    const id = this.id;
    const end = id.lastIndexOf('"');
    if (id[end + 1] !== "@") return "";
    // RDF 1.2's direction (`@en--ltr`) is not part of the tag.
    const direction = id.indexOf("--", end);
    return id.slice(end + 2, direction === -1 ? undefined : direction);
  },
});

/** A literal: language-tagged (tag as written) when `languageOrDatatype` is a string. */
export function literal(value: string, languageOrDatatype?: string | Term): Literal {
  if (typeof languageOrDatatype === "string") {
    return new WrittenTagLiteral(`"${value}"@${languageOrDatatype}`);
  }
  return DataFactory.literal(
    value,
    languageOrDatatype as Parameters<typeof DataFactory.literal>[1],
  );
}

/** N3.js's `termFromId`, with a literal's tag as written in the id. */
export function termFromId(id: string): Term {
  return id[0] === '"' ? new WrittenTagLiteral(id) : n3TermFromId(id);
}

/**
 * An RDF/JS data factory for N3.js's parsers (`new Parser({ factory })`): N3.js's own, but
 * for literals, which keep their tag as written.
 */
export const writtenTagFactory = {
  ...DataFactory,
  literal,
  fromTerm(term: Term): Term {
    if (term.termType !== "Literal" || term instanceof WrittenTagLiteral) {
      return DataFactory.fromTerm(term as never) as Term;
    }
    const source = term as Literal;
    return source.language
      ? literal(source.value, source.language)
      : DataFactory.fromTerm(term as never) as Term;
  },
} as unknown as typeof DataFactory;

/** `term` with its language tag in lower case (the canonical form's), else `term` itself. */
export function lowerCaseTag<T extends Term>(term: T): T {
  if (term.termType !== "Literal") return term;
  const language = (term as unknown as Literal).language;
  if (!language || language === language.toLowerCase()) return term;
  return DataFactory.literal(term.value, language) as unknown as T;
}

/** `quad` with its object's language tag in lower case (only objects are literals). */
export function withLowerCaseTag(quad: Quad): Quad {
  const object = lowerCaseTag(quad.object);
  return object === quad.object
    ? quad
    : DataFactory.quad(quad.subject, quad.predicate, object, quad.graph);
}

/** A tag with an upper-case letter: the only kind whose spelling needs keeping. */
const UPPER = /[A-Z]/;

/**
 * The written spellings of the language tags of some data, by their lower-case form, to
 * give an engine's lower-cased answers (oxigraph's) their written tags back. One tag
 * spelled several ways in the data (`en-US` and `en-us`, one tag to RDF) is answered with
 * the spelling first in code point order (upper case before lower case: `en-US`), whatever
 * order the data came in, so an answer does not depend on load order.
 */
export class TagSpellings {
  #written = new Map<string, string>();

  /** Spellings from {@link written} (sent across a thread). */
  static of(written: Iterable<string>): TagSpellings {
    const spellings = new TagSpellings();
    for (const tag of written) spellings.note(tag);
    return spellings;
  }

  /** The written spellings kept (those with an upper-case letter). */
  written(): string[] {
    return [...this.#written.values()];
  }

  /** Whether any tag of the data was written with an upper-case letter. */
  get empty(): boolean {
    return this.#written.size === 0;
  }

  /** Notes a tag as written. */
  note(tag: string): void {
    if (!UPPER.test(tag)) return;
    const lower = tag.toLowerCase();
    const known = this.#written.get(lower);
    if (known === undefined || tag < known) this.#written.set(lower, tag);
  }

  /** Notes the tag of a term id (N3.js id text: `"value"@tag`), if it has one. */
  noteId(id: string): void {
    if (id[0] !== '"') return;
    const end = id.lastIndexOf('"');
    if (id[end + 1] === "@") this.note(id.slice(end + 2));
  }

  /** The written spelling of `tag` (as an engine answered it), else `tag`. */
  spell(tag: string): string {
    return this.#written.get(tag.toLowerCase()) ?? tag;
  }

  /** `term` with its tag as written in the data. */
  restoreTerm<T extends Term>(term: T): T {
    if (this.empty || term.termType !== "Literal") return term;
    const language = (term as unknown as Literal).language;
    if (!language) return term;
    const written = this.spell(language);
    return (written === language && term instanceof WrittenTagLiteral)
      ? term
      : literal(term.value, written) as unknown as T;
  }

  /** `quad` with its object's tag as written in the data (only objects are literals). */
  restoreQuad(quad: Quad): Quad {
    if (this.empty || quad.object.termType !== "Literal") return quad;
    const object = this.restoreTerm(quad.object);
    return object === quad.object
      ? quad
      : DataFactory.quad(quad.subject, quad.predicate, object, quad.graph);
  }
}

/**
 * A term id's identity as RDF has it: the id with its language tag in lower case (`"a"@en-US`
 * and `"a"@en-us` are one term), other ids unchanged. Costs a scan of the id's last
 * characters only.
 */
export function termIdentity(id: string): string {
  if (id[0] !== '"') return id;
  const end = id.lastIndexOf('"');
  if (id[end + 1] !== "@") return id;
  const tag = id.slice(end + 2);
  return UPPER.test(tag) ? id.slice(0, end + 2) + tag.toLowerCase() : id;
}
