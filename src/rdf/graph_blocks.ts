/**
 * Splits a streamed N-Quads or TriG document into graph blocks, one per item, without
 * parsing it: each block's text is then parsed alone (`block_item.ts`), so that a syntax
 * error stays inside its item and the rest of the file still imports, and only one block is
 * held in memory at a time.
 *
 * TriG: a block is `[GRAPH] name { … }`, found by tracking braces outside IRIs, strings and
 * comments; the directives seen so far (`@prefix`, `@base`, `PREFIX`, `BASE`) go in front
 * of each block's text. N-Quads: a block is a run of consecutive lines with the same graph
 * label, found by matching each line's terms. Triples in the default graph (top-level TriG
 * statements, `{ … }` without a name, N-Quads lines without a graph label) come out as
 * refused blocks.
 */

/** The two bulk formats. */
export type BulkFormat = "nquads" | "trig";

/** One block of the input: an item's text to parse, or a part refused before parsing. */
export interface GraphBlock {
  /** The text to parse: one line of directives (TriG), then the block as it was written. */
  text: string;
  /** The 1-based line of the input the block starts on (its first statement). */
  line: number;
  /** The input line of the first character after the directives line of `text`. */
  textLine: number;
  /** Set when the block is refused as it stands (default graph, too large, unterminated). */
  refused?: { type: string; message: string };
}

/** Blocks over `maxBlockBytes` (UTF-16 units, about bytes) are refused, not held. */
export interface SplitOptions {
  maxBlockChars: number;
}

/** The blocks of `chunks` (decoded text, in order), as they complete. */
export async function* graphBlocks(
  chunks: AsyncIterable<string>,
  format: BulkFormat,
  options: SplitOptions,
): AsyncIterable<GraphBlock> {
  const splitter = format === "trig" ? new TrigSplitter(options) : new NQuadsSplitter(options);
  for await (const chunk of chunks) yield* splitter.feed(chunk);
  yield* splitter.end();
}

interface Splitter {
  feed(chunk: string): GraphBlock[];
  end(): GraphBlock[];
}

/** Text of a block being collected, with a cap: past it the text is dropped, not kept. */
class BlockText {
  #parts: string[] = [];
  #length = 0;
  overflowed = false;

  constructor(private readonly max: number) {}

  add(text: string): void {
    if (this.overflowed || text.length === 0) return;
    this.#length += text.length;
    if (this.#length > this.max) {
      this.overflowed = true;
      this.#parts = [];
      return;
    }
    this.#parts.push(text);
  }

  take(): string {
    const text = this.#parts.join("");
    this.#parts = [];
    this.#length = 0;
    this.overflowed = false;
    return text;
  }
}

function tooLarge(max: number): GraphBlock["refused"] {
  return {
    type: "item-too-large",
    message: `The graph block is larger than service.http.maxBodyBytes (${max}); ` +
      "an item is at most that size.",
  };
}

function defaultGraph(what: string): GraphBlock["refused"] {
  return {
    type: "default-graph-refused",
    message: `${what} in the default graph: each item is a named graph (its name is the ` +
      "item's URI); triples outside a named graph are not imported. A dump without named " +
      "graphs is imported with itemsBy=subject (--items-by subject): each IRI subject one item.",
  };
}

// ---------------------------------------------------------------------------------------
// N-Quads

const TERM = String
  .raw`(?:<[^>\s]*>|_:\S+?|"(?:[^"\\]|\\.)*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^<[^>\s]*>)?)`;
/** A statement line: subject, predicate, object, and the graph label when there is one. */
const QUAD_LINE = new RegExp(
  String.raw`^\s*${TERM}\s*${TERM}\s*${TERM}\s*(${TERM})?\s*\.\s*(?:#.*)?$`,
);
const BLANK_LINE = /^\s*(?:#.*)?$/;

/** Groups consecutive lines with the same graph label; odd lines go with their neighbours. */
class NQuadsSplitter implements Splitter {
  #rest = "";
  #lineNumber = 0;
  /** The graph label of the open block ("" for the default graph); undefined when none. */
  #label: string | undefined;
  #line = 0;
  #text: BlockText;

  constructor(private readonly options: SplitOptions) {
    this.#text = new BlockText(options.maxBlockChars);
  }

  feed(chunk: string): GraphBlock[] {
    const text = this.#rest + chunk;
    const blocks: GraphBlock[] = [];
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      this.#lineOf(text.slice(start, end + 1), blocks);
      start = end + 1;
    }
    this.#rest = text.slice(start);
    return blocks;
  }

  end(): GraphBlock[] {
    const blocks: GraphBlock[] = [];
    if (this.#rest !== "") this.#lineOf(this.#rest, blocks);
    this.#rest = "";
    this.#close(blocks);
    return blocks;
  }

  #lineOf(line: string, blocks: GraphBlock[]): void {
    this.#lineNumber++;
    if (BLANK_LINE.test(line)) {
      if (this.#label !== undefined) this.#text.add(line);
      return;
    }
    const match = QUAD_LINE.exec(line);
    // A line that is no statement stays with the open block (whose parse then reports it).
    const label = match ? match[1] ?? "" : this.#label ?? "?";
    if (label !== this.#label) {
      this.#close(blocks);
      this.#label = label;
      this.#line = this.#lineNumber;
    }
    this.#text.add(line);
  }

  #close(blocks: GraphBlock[]): void {
    if (this.#label === undefined) return;
    const overflowed = this.#text.overflowed;
    const text = this.#text.take();
    const block: GraphBlock = { text: "\n" + text, line: this.#line, textLine: this.#line };
    if (this.#label === "") block.refused = defaultGraph("Lines");
    else if (overflowed) block.refused = tooLarge(this.options.maxBlockChars);
    blocks.push(block);
    this.#label = undefined;
  }
}

// ---------------------------------------------------------------------------------------
// TriG

/** Where the scanner is: in plain text, or inside a token whose characters do not count. */
type Mode = "text" | "iri" | "comment" | "string";

const DIRECTIVE = /^\s*(?:@prefix|@base|prefix\s|base\s)/i;
const SPARQL_DIRECTIVE = /^\s*(?:prefix|base)\s/i;
/** Characters a scan may need after the current one (`"""`). */
const LOOKAHEAD = 2;
/** Characters after which a `.` at the top level ends a statement (not a name's dot). */
const STATEMENT_END = /[\s#<(["'@]/;

/** Tracks braces outside IRIs, strings and comments; see the module comment. */
class TrigSplitter implements Splitter {
  #mode: Mode = "text";
  #quote = "";
  #longString = false;
  #depth = 0;
  #lineNumber = 1;
  /** Top-level text since the last statement or block, and the line of its first character. */
  #pending = "";
  #pendingStart = 1;
  #directives: string[] = [];
  #block: BlockText;
  #blockLine = 0;
  #blockTextLine = 0;
  /** The end of the last chunk, scanned with the next one (see `#scan`). */
  #carry = "";

  constructor(private readonly options: SplitOptions) {
    this.#block = new BlockText(options.maxBlockChars);
  }

  feed(chunk: string): GraphBlock[] {
    return this.#scan(this.#carry + chunk, false);
  }

  /**
   * Scans `text`. Unless `final`, a character that can only be judged with the ones after it
   * (an escape, a quote that may open or close `"""`, a statement's `.`) and comes too close
   * to the end stops the scan: it is scanned again with the next chunk.
   */
  #scan(text: string, final: boolean): GraphBlock[] {
    const blocks: GraphBlock[] = [];
    const limit = text.length;
    /** True when fewer than `ahead` characters follow position `i` in this chunk. */
    const short = (i: number, ahead: number) => !final && i + ahead >= limit;
    let start = 0; // what of `text` is not yet in `#pending` or the block
    const keep = (end: number) => {
      const kept = text.slice(start, end);
      if (this.#depth > 0) this.#block.add(kept);
      else this.#addPending(kept);
      start = end;
    };
    let i = 0;
    scan: for (; i < limit; i++) {
      const c = text[i];
      if (c === "\n") {
        this.#lineNumber++;
        if (this.#mode === "comment" || this.#mode === "iri") this.#mode = "text";
        else if (this.#mode === "string" && !this.#longString) this.#mode = "text";
        continue;
      }
      switch (this.#mode) {
        case "comment":
          continue;
        case "iri":
          if (c === ">") {
            this.#mode = "text";
            if (
              this.#depth === 0 &&
              SPARQL_DIRECTIVE.test(withoutComments(this.#pending + text.slice(start, i)))
            ) {
              keep(i + 1);
              this.#endStatement(blocks);
            }
          }
          continue;
        case "string":
          if ((c === "\\" || c === this.#quote && this.#longString) && short(i, LOOKAHEAD)) {
            break scan;
          }
          if (c === "\\") i++;
          else if (c === this.#quote) {
            if (!this.#longString) this.#mode = "text";
            else if (text[i + 1] === c && text[i + 2] === c) {
              i += 2;
              this.#mode = "text";
            }
          }
          continue;
      }
      if ((c === "\\" || c === '"' || c === "'" || c === ".") && short(i, LOOKAHEAD)) break scan;
      switch (c) {
        case "\\": // an escape in a name (`ex:it\'s`): the next character is not syntax
          i++;
          break;
        case "#":
          this.#mode = "comment";
          break;
        case "<":
          this.#mode = "iri";
          break;
        case '"':
        case "'":
          this.#mode = "string";
          this.#quote = c;
          this.#longString = text[i + 1] === c && text[i + 2] === c;
          if (this.#longString) i += 2;
          break;
        case "{":
          if (this.#depth === 0) {
            keep(i);
            this.#blockTextLine = this.#pending === "" ? this.#lineNumber : this.#pendingStart;
            this.#blockLine = contentLine(this.#pending, this.#blockTextLine);
            this.#block.add(this.#pending);
            this.#pending = "";
          }
          this.#depth++;
          break;
        case "}":
          if (this.#depth === 0) break; // the block's parse will report it
          if (this.#depth === 1) {
            keep(i + 1);
            blocks.push(this.#closeBlock());
          } else this.#depth--;
          break;
        case ".":
          if (this.#depth === 0 && (i + 1 >= text.length || STATEMENT_END.test(text[i + 1]))) {
            keep(i + 1);
            this.#endStatement(blocks);
          }
          break;
      }
    }
    const end = Math.min(i, limit);
    keep(end);
    this.#carry = text.slice(end);
    return blocks;
  }

  end(): GraphBlock[] {
    const blocks = this.#scan(this.#carry, true);
    if (this.#depth > 0) {
      const block = this.#closeBlock();
      block.refused ??= {
        type: "rdf-syntax",
        message: "The graph block is not closed: the input ends inside it (a `}` is missing).",
      };
      blocks.push(block);
    }
    this.#endStatement(blocks);
    return blocks;
  }

  #addPending(text: string): void {
    if (text === "") return;
    if (this.#pending === "") this.#pendingStart = this.#lineNumber - countLines(text);
    this.#pending += text;
  }

  /** A top-level statement ended: a directive is kept, anything else is refused. */
  #endStatement(blocks: GraphBlock[]): void {
    const statement = this.#pending;
    this.#pending = "";
    const content = withoutComments(statement);
    if (content.trim() === "") return;
    if (DIRECTIVE.test(content)) {
      this.#directives.push(content.replace(/\s+/g, " ").trim());
      return;
    }
    blocks.push({
      text: "\n" + statement,
      line: contentLine(statement, this.#pendingStart),
      textLine: this.#pendingStart,
      refused: defaultGraph("Triples"),
    });
  }

  #closeBlock(): GraphBlock {
    const overflowed = this.#block.overflowed;
    const body = this.#block.take();
    const block: GraphBlock = {
      text: this.#directives.join(" ") + "\n" + body,
      line: this.#blockLine,
      textLine: this.#blockTextLine,
    };
    if (overflowed) block.refused = tooLarge(this.options.maxBlockChars);
    else if (/^\s*\{/.test(withoutComments(body))) {
      block.refused = defaultGraph("A graph block without a name");
    }
    this.#depth = 0;
    this.#mode = "text";
    return block;
  }
}

/** `text` without its leading white space and comment lines. */
function withoutComments(text: string): string {
  return text.replace(/^(?:\s*#[^\n]*(?:\n|$))*\s*/, "");
}

/** The line of the first character of `text` that is neither white space nor a comment. */
function contentLine(text: string, firstLine: number): number {
  return firstLine + countLines(text.slice(0, text.length - withoutComments(text).length));
}

function countLines(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}
