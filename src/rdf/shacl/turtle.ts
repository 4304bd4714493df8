/**
 * A small Turtle writer for readable, grouped output: one block per subject, predicates in
 * the order given, IRIs shortened with the declared prefixes wherever Turtle allows it.
 *
 * @module
 */
import { RDF_TYPE } from "./vocabulary.ts";

/** An object in a statement. */
export type TurtleObject =
  | { readonly kind: "iri"; readonly iri: string }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "integer"; readonly value: number }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "list"; readonly items: readonly TurtleObject[] };

/** One predicate of a block with its objects. */
export interface TurtleStatement {
  readonly predicate: string;
  readonly objects: readonly TurtleObject[];
}

/** Text of a comment line; IRIs in it are shortened like the rest of the document. */
export type CommentPart = string | { readonly iri: string };

/** One subject with its statements, optionally preceded by a comment line. */
export interface TurtleBlock {
  readonly comment?: readonly CommentPart[];
  readonly subject: string;
  readonly statements: readonly TurtleStatement[];
}

/** A `@prefix` declaration. */
export interface PrefixDeclaration {
  readonly prefix: string;
  readonly namespace: string;
}

/** Everything a Turtle document holds, in output order. */
export interface TurtleDocument {
  /** Comment lines at the top. */
  readonly header: readonly string[];
  readonly prefixes: readonly PrefixDeclaration[];
  readonly blocks: readonly TurtleBlock[];
}

const LINE_WIDTH = 100;
const INDENT = "    ";

/** Writes `document` as Turtle; the same document always gives the same text. */
export function writeTurtle(document: TurtleDocument): string {
  const formatIri = createIriFormatter(document.prefixes);
  const lines: string[] = document.header.map((line) => `# ${oneLine(line)}`);
  if (lines.length > 0) lines.push("");
  for (const { prefix, namespace } of document.prefixes) {
    lines.push(`@prefix ${prefix}: <${escapeIri(namespace)}> .`);
  }
  for (const block of document.blocks) {
    lines.push("");
    if (block.comment) {
      const text = block.comment.map((part) =>
        typeof part === "string" ? part : formatIri(part.iri)
      );
      lines.push(`# ${oneLine(text.join(""))}`);
    }
    lines.push(formatIri(block.subject));
    block.statements.forEach((statement, index) => {
      const end = index === block.statements.length - 1 ? " ." : " ;";
      lines.push(...formatStatement(statement, formatIri, end));
    });
  }
  return `${lines.join("\n")}\n`;
}

/** Every IRI a list of blocks mentions, comments included: what the prefixes may cover. */
export function irisOf(blocks: readonly TurtleBlock[]): Set<string> {
  const iris = new Set<string>();
  const addObject = (object: TurtleObject): void => {
    if (object.kind === "iri") iris.add(object.iri);
    else if (object.kind === "list") object.items.forEach(addObject);
  };
  for (const block of blocks) {
    iris.add(block.subject);
    for (const part of block.comment ?? []) if (typeof part !== "string") iris.add(part.iri);
    for (const statement of block.statements) {
      iris.add(statement.predicate);
      statement.objects.forEach(addObject);
    }
  }
  return iris;
}

/**
 * Shortens an IRI to `prefix:local` with the longest matching namespace whose remainder
 * Turtle can write as a local name (escaping `/` and the like), else writes `<iri>`.
 */
export function createIriFormatter(
  prefixes: readonly PrefixDeclaration[],
): (iri: string) => string {
  const longestFirst = [...prefixes].sort((a, b) => b.namespace.length - a.namespace.length);
  return (iri) => {
    for (const { prefix, namespace } of longestFirst) {
      if (!iri.startsWith(namespace)) continue;
      const local = escapeLocalName(iri.slice(namespace.length));
      if (local !== undefined) return `${prefix}:${local}`;
    }
    return `<${escapeIri(iri)}>`;
  };
}

function formatStatement(
  statement: TurtleStatement,
  formatIri: (iri: string) => string,
  end: string,
): string[] {
  const predicate = statement.predicate === RDF_TYPE ? "a" : formatIri(statement.predicate);
  const objects = statement.objects.map((object) => formatObject(object, formatIri));
  const single = `${INDENT}${predicate} ${objects.join(", ")}${end}`;
  if (single.length <= LINE_WIDTH) return [single];
  const [only] = statement.objects;
  if (statement.objects.length === 1 && only.kind === "list") {
    return [
      `${INDENT}${predicate} (`,
      ...only.items.map((item) => `${INDENT}${INDENT}${formatObject(item, formatIri)}`),
      `${INDENT})${end}`,
    ];
  }
  if (objects.length === 1) return [single];
  return [
    `${INDENT}${predicate}`,
    ...objects.map((object, index) =>
      `${INDENT}${INDENT}${object}${index === objects.length - 1 ? end : ","}`
    ),
  ];
}

function formatObject(object: TurtleObject, formatIri: (iri: string) => string): string {
  switch (object.kind) {
    case "iri":
      return formatIri(object.iri);
    case "string":
      return `"${escapeString(object.value)}"`;
    case "integer":
      return String(Math.trunc(object.value));
    case "boolean":
      return String(object.value);
    case "list":
      return `( ${object.items.map((item) => formatObject(item, formatIri)).join(" ")} )`;
  }
}

const LOCAL_ESCAPABLE = new Set("_~.-!$&'()*+,;=/?#@%");

/** `local` as a Turtle PN_LOCAL (with `\` escapes), or undefined when Turtle cannot write it. */
export function escapeLocalName(local: string): string | undefined {
  const characters = [...local];
  let escaped = "";
  for (let index = 0; index < characters.length; index++) {
    const character = characters[index];
    const code = character.codePointAt(0)!;
    const first = index === 0;
    const last = index === characters.length - 1;
    if (isNameStartChar(code) || character === ":" || (code >= 0x30 && code <= 0x39)) {
      escaped += character;
    } else if (!first && isNameChar(code)) {
      escaped += character;
    } else if (character === "." && !first && !last) {
      escaped += character;
    } else if (character === "%" && isHex(characters[index + 1]) && isHex(characters[index + 2])) {
      // A percent-encoded octet stays as written: Turtle keeps `%XX` in local names as is.
      escaped += character;
    } else if (LOCAL_ESCAPABLE.has(character)) {
      escaped += `\\${character}`;
    } else {
      return undefined;
    }
  }
  return escaped;
}

function isHex(character: string | undefined): boolean {
  return character !== undefined && /^[0-9A-Fa-f]$/.test(character);
}

/** PN_CHARS_U of the Turtle grammar. */
function isNameStartChar(code: number): boolean {
  return code === 0x5f || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) ||
    (code >= 0xc0 && code <= 0xd6) || (code >= 0xd8 && code <= 0xf6) ||
    (code >= 0xf8 && code <= 0x2ff) || (code >= 0x370 && code <= 0x37d) ||
    (code >= 0x37f && code <= 0x1fff) || (code >= 0x200c && code <= 0x200d) ||
    (code >= 0x2070 && code <= 0x218f) || (code >= 0x2c00 && code <= 0x2fef) ||
    (code >= 0x3001 && code <= 0xd7ff) || (code >= 0xf900 && code <= 0xfdcf) ||
    (code >= 0xfdf0 && code <= 0xfffd) || (code >= 0x10000 && code <= 0xeffff);
}

/** The characters PN_CHARS adds to PN_CHARS_U (allowed after the first position). */
function isNameChar(code: number): boolean {
  return code === 0x2d || (code >= 0x30 && code <= 0x39) || code === 0xb7 ||
    (code >= 0x300 && code <= 0x36f) || (code >= 0x203f && code <= 0x2040);
}

function escapeIri(iri: string): string {
  return iri.replace(
    // deno-lint-ignore no-control-regex -- control characters are exactly what IRIREF forbids
    /[\u0000-\u0020<>"{}|^`\\]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

function escapeString(value: string): string {
  // deno-lint-ignore no-control-regex -- control characters must be escaped in a string literal
  return value.replace(/[\\"\n\r\t]|[\u0000-\u001f\u007f]/g, (character) => {
    switch (character) {
      case "\\":
        return "\\\\";
      case '"':
        return '\\"';
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      default:
        return `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    }
  });
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}
