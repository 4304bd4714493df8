/**
 * Items by subject, for the dumps people have (schema.org as one N-Triples file, a Turtle
 * vocabulary, RDF/XML, JSON-LD): each IRI subject, with the blank nodes it reaches, is one
 * item named by that IRI, as `chooseItemUri` reads one body.
 *
 * A subject's triples may be anywhere in a file, so nothing can be written before the whole
 * file has been read. Holding it in memory would bound imports by the heap; instead every
 * triple is spilled, as one N-Triples line, into a temporary SQLite file keyed by subject
 * (written without journal or sync: it is thrown away), then read back subject by subject
 * through an index. Memory holds one item at a time; the disk holds about the file's size
 * again. The formats the table marks `streamedImport` (N-Triples, Turtle, N-Quads, TriG) are
 * parsed as they stream in (`streamed_quads.ts`); the others (RDF/XML, JSON-LD) have no
 * streaming parser here and are read whole, up to {@link WHOLE_DOCUMENT_MAX_BYTES}.
 *
 * Graph names are dropped only when asked (`graphs: "ignore"`: a vocabulary shipped as
 * N-Quads, one graph per file): otherwise the first triple in a named graph ends the import
 * before anything is written, naming its line, for its graph would be lost without a word.
 * Blank node subjects no IRI subject reaches are refused, counted once.
 */
import { DatabaseSync } from "node:sqlite";
import type { Quad } from "n3";
import { encodeTerm } from "../rdf/writers/ntriples.ts";
import { parseRdf } from "../rdf/parse.ts";
import { type ImportFormat, isStreamedImport, RDF_FORMATS } from "../rdf/format_table.ts";
import { rdfSyntaxProblem } from "../rdf/syntax_errors.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { BlockItem } from "../rdf/block_item.ts";
import { streamedQuads } from "./streamed_quads.ts";

/** RDF/XML and JSON-LD are parsed whole: larger documents are refused. */
export const WHOLE_DOCUMENT_MAX_BYTES = 64 * 1024 * 1024;

/** What an import by subject does with graph names: refuse the document, or drop them. */
export type GraphNames = "refuse" | "ignore";

/** What one subject gave: its item, or why it is refused. */
export type SubjectUnit =
  | {
    item: BlockItem;
    refused?: undefined;
    /** With `withLinks`: the items of the document named by IRIs the item links to. */
    links?: ReadonlyMap<string, Quad[]>;
  }
  | {
    item?: undefined;
    uri: string | null;
    refused: { type: string; message: string; count?: number };
  };

/** Options of {@link subjectItems}. */
export interface SubjectOptions {
  base?: string;
  /** The largest item, in bytes of N-Triples (`service.http.maxBodyBytes`). */
  maxItemBytes: number;
  /** Local copies of remote JSON-LD contexts. */
  contexts?: Record<string, unknown>;
  /** Called once the whole document has been read (before the first item comes). */
  onRead?: () => void;
  /** Triples in named graphs: `refuse` (default) ends the import, `ignore` takes them. */
  graphs?: GraphNames;
  /**
   * Give each item the document's items named by the IRIs it links to (`SubjectUnit.links`):
   * SHACL shapes that look at linked nodes read them, wherever in the document they are.
   */
  withLinks?: boolean;
}

/**
 * The items of the document in `chunks` (decoded text), one per IRI subject in the order
 * subjects first appear. A syntax error ends the document (nothing of it is written): it is
 * thrown as 400 `rdf-syntax` with its line; so is the first triple in a named graph unless
 * graph names are ignored (`named-graphs-not-allowed`, with its line).
 */
export async function* subjectItems(
  chunks: AsyncIterable<string>,
  format: ImportFormat,
  options: SubjectOptions,
): AsyncIterable<SubjectUnit> {
  const path = await Deno.makeTempFile({ prefix: "rcs-import-", suffix: ".sqlite" });
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768;
      CREATE TABLE triples (seq INTEGER PRIMARY KEY, subject TEXT NOT NULL, line TEXT NOT NULL);
      CREATE TABLE reached (subject TEXT PRIMARY KEY) WITHOUT ROWID;`);
    await spill(db, quadsOf(chunks, format, options), options.graphs ?? "refuse");
    db.exec("CREATE INDEX triples_by_subject ON triples (subject, seq)");
    options.onRead?.();
    // One transaction for the read phase: the `reached` rows are then not each a commit.
    db.exec("BEGIN");
    yield* readItems(db, options.maxItemBytes, options.withLinks ?? false);
    db.exec("COMMIT");
    const unreached = db.prepare(
      `SELECT COUNT(DISTINCT subject) AS n FROM triples
       WHERE subject LIKE '\\_:%' ESCAPE '\\' AND subject NOT IN (SELECT subject FROM reached)`,
    ).get() as { n: number };
    if (unreached.n > 0) {
      yield {
        uri: null,
        refused: {
          type: "blank-node-not-reached",
          message: `${unreached.n} blank node subjects are reached from no IRI subject; an ` +
            "item is an IRI subject with the blank nodes it reaches, so they are not imported.",
          count: unreached.n,
        },
      };
    }
  } finally {
    db.close();
    await Deno.remove(path).catch(() => {});
  }
}

/**
 * Writes every triple into `triples`, graph names dropped when `graphs` is `ignore`; with
 * `refuse`, throws at the first triple in a named graph.
 */
async function spill(
  db: DatabaseSync,
  quads: AsyncIterable<{ quad: Quad; line?: number }>,
  graphs: GraphNames,
): Promise<void> {
  const insert = db.prepare("INSERT INTO triples (subject, line) VALUES (?, ?)");
  let pending = 0;
  db.exec("BEGIN");
  try {
    for await (const { quad, line } of quads) {
      if (quad.graph.termType !== "DefaultGraph" && graphs === "refuse") {
        throw namedGraphRefused(quad, line);
      }
      insert.run(
        encodeTerm(quad.subject),
        `${encodeTerm(quad.subject)} ${encodeTerm(quad.predicate)} ${encodeTerm(quad.object)} .`,
      );
      // Commits now and then so a long import does not keep one huge transaction.
      if (++pending === 10_000) {
        db.exec("COMMIT; BEGIN");
        pending = 0;
      }
    }
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** 400 for a triple in a named graph, by subject, naming its line where the syntax tells. */
function namedGraphRefused(quad: Quad, line: number | undefined): DomainError {
  const graph = quad.graph.termType === "NamedNode"
    ? `<${quad.graph.value}>`
    : `_:${quad.graph.value}`;
  const where = line === undefined ? "The document" : `Line ${line}`;
  return new DomainError("named-graphs-not-allowed", {
    detail: `${where} has a triple in the named graph ${graph}; items by subject would drop ` +
      "its graph name, so nothing was imported. To import the triples without their graph " +
      "names, give graphs=ignore (deno task import --graphs ignore); to import each named " +
      "graph as one item, itemsBy=graph.",
    errors: [{
      path: line === undefined ? "body" : `${line}:0`,
      message: `named graph ${graph}`,
    }],
  });
}

/** The quads of the document, streamed where the syntax allows, with their lines then. */
async function* quadsOf(
  chunks: AsyncIterable<string>,
  format: ImportFormat,
  options: SubjectOptions,
): AsyncIterable<{ quad: Quad; line?: number }> {
  if (isStreamedImport(format)) {
    try {
      yield* streamedQuads(chunks, format, options.base);
    } catch (error) {
      throw syntaxError(error, format);
    }
    return;
  }
  let text = "";
  for await (const chunk of chunks) {
    text += chunk;
    if (text.length > WHOLE_DOCUMENT_MAX_BYTES) {
      throw new DomainError("body-too-large", {
        detail: `${RDF_FORMATS[format].label} is parsed whole; documents over ` +
          `${WHOLE_DOCUMENT_MAX_BYTES} bytes are refused (convert it to N-Triples, which is ` +
          "streamed).",
      });
    }
  }
  const { quads } = await parseRdf(text, format, {
    baseIri: options.base,
    contexts: options.contexts,
  });
  for (const quad of quads) yield { quad };
}

/** N3.js's error as 400 `rdf-syntax` with its line. */
function syntaxError(error: unknown, format: ImportFormat): unknown {
  if (!(error instanceof Error) || !/line \d+/.test(error.message)) return error;
  const line = (error as { context?: { line?: number } }).context?.line ??
    Number(/line (\d+)/.exec(error.message)?.[1]);
  return rdfSyntaxProblem(
    RDF_FORMATS[format].label,
    error.message.replace(/ on line \d+\.?$/, ""),
    line,
  );
}

/** Most linked items given to one item (as the SHACL validator reads at most). */
const MAX_LINKS = 1000;

/** One item per IRI subject, in first-seen order, each with the blank nodes it reaches. */
async function* readItems(
  db: DatabaseSync,
  maxItemBytes: number,
  withLinks: boolean,
): AsyncIterable<SubjectUnit> {
  const subjects = db.prepare(
    `SELECT subject FROM triples WHERE subject LIKE '<%'
     GROUP BY subject ORDER BY MIN(seq)`,
  );
  const linesOf = db.prepare("SELECT line FROM triples WHERE subject = ? ORDER BY seq");
  const reach = db.prepare("INSERT OR IGNORE INTO reached (subject) VALUES (?)");
  /** The subject's triples and those of the blank nodes it reaches, and their size. */
  const itemLines = (subject: string, reached?: (blank: string) => void) => {
    const lines: string[] = [];
    let bytes = 0;
    const queue = [subject];
    const visited = new Set(queue);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const { line } of linesOf.all(next) as unknown as { line: string }[]) {
        bytes += line.length + 1;
        if (bytes <= maxItemBytes) lines.push(line);
        const object = BLANK_OBJECT.exec(line)?.[1];
        if (object && !visited.has(object)) {
          visited.add(object);
          queue.push(object);
          reached?.(object);
        }
      }
    }
    return { lines, bytes };
  };
  const isSubject = db.prepare("SELECT 1 FROM triples WHERE subject = ? LIMIT 1");
  /** The document's items named by the IRIs `quads` link to (read now: see withLinks). */
  const linksOf = async (uri: string, quads: Quad[]) => {
    const links = new Map<string, Quad[]>();
    for (const quad of quads) {
      if (links.size >= MAX_LINKS) break;
      const { object } = quad;
      if (object.termType !== "NamedNode" || object.value === uri || links.has(object.value)) {
        continue;
      }
      const subject = encodeTerm(object);
      if (isSubject.get(subject) === undefined) continue;
      const { lines, bytes } = itemLines(subject);
      if (bytes > maxItemBytes) continue; // refused as an item: no context either
      try {
        links.set(object.value, (await parseRdf(lines.join("\n"), "ntriples")).quads);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error; // a refused item gives no context
      }
    }
    return links;
  };
  for (const row of subjects.iterate() as Iterable<{ subject: string }>) {
    const uri = row.subject.slice(1, -1);
    const { lines, bytes } = itemLines(row.subject, (blank) => reach.run(blank));
    if (bytes > maxItemBytes) {
      yield {
        uri,
        refused: {
          type: "item-too-large",
          message: `The subject's triples are larger than service.http.maxBodyBytes ` +
            `(${maxItemBytes}); an item is at most that size.`,
        },
      };
      continue;
    }
    // Read back through the service's parser: its checks (absolute IRIs, language tags) and
    // canonical XML literals, as any body gets.
    let quads: Quad[];
    try {
      quads = (await parseRdf(lines.join("\n"), "ntriples")).quads;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      yield { uri, refused: { type: error.slug, message: error.message } };
      continue;
    }
    yield { item: { uri, quads }, ...(withLinks ? { links: await linksOf(uri, quads) } : {}) };
  }
}

/** The blank node object of an N-Triples line written by `spill` (it ends ` _:label .`). */
const BLANK_OBJECT = / (_:\S+) \.$/;
