/**
 * One graph block of an import to the item it holds: parsed alone (so a syntax error stays
 * in its item), every quad in one named graph whose IRI is the item's URI, the quads moved
 * to the default graph as an item body is. Failures are {@link DomainError}s whose lines
 * are lines of the whole input.
 */
import { DataFactory, type Quad } from "n3";
import { DomainError, isProblem } from "../errors/domain_error.ts";
import { rdfSyntaxProblem } from "./syntax_errors.ts";
import { parseRdf } from "./parse.ts";
import type { BulkFormat, GraphBlock } from "./graph_blocks.ts";

/** An item read from a block. */
export interface BlockItem {
  uri: string;
  quads: Quad[];
}

const FORMAT_NAMES: Record<BulkFormat, string> = { nquads: "N-Quads", trig: "TriG" };

/** Parses `block` (not refused) into its item; `baseIri` is the `base` parameter. */
export async function blockItem(
  block: GraphBlock,
  format: BulkFormat,
  baseIri: string | undefined,
): Promise<BlockItem> {
  let quads: Quad[];
  try {
    quads = (await parseRdf(block.text, format, { baseIri })).quads;
  } catch (error) {
    throw isProblem(error, "rdf-syntax") ? relocated(error, block, format) : error;
  }
  const graph = quads[0]?.graph;
  if (!graph) {
    throw new DomainError("empty-body", { detail: "The graph block holds no triples." });
  }
  if (graph.termType !== "NamedNode") {
    throw new DomainError("graph-name-not-iri", {
      detail:
        `The graph is named by the blank node _:${graph.value}; an item's graph is named by ` +
        "its URI (an IRI).",
    });
  }
  if (quads.some((quad) => !quad.graph.equals(graph))) {
    throw new DomainError("rdf-syntax", {
      detail: `The lines starting at line ${block.line} name more than one graph.`,
    });
  }
  const defaultGraph = DataFactory.defaultGraph();
  return {
    uri: graph.value,
    quads: quads.map((quad) =>
      DataFactory.quad(quad.subject, quad.predicate, quad.object, defaultGraph)
    ),
  };
}

/** The syntax problem with the block's line turned into the input's line. */
function relocated(error: DomainError, block: GraphBlock, format: BulkFormat): DomainError {
  const at = /^(\d+):(\d+)$/.exec(error.errors?.[0]?.path ?? "");
  if (!at) return error;
  // Line 1 of the text is the directives line; line 2 is the input's `textLine`.
  const line = block.textLine + Number(at[1]) - 2;
  const column = Number(at[2]) || undefined;
  const message = error.errors?.[0]?.message ?? error.message;
  return rdfSyntaxProblem(FORMAT_NAMES[format], message, line, column);
}

/** The input line a problem points at, if it names one; else the block's first line. */
export function problemLine(error: unknown, block: GraphBlock): number {
  if (isProblem(error, "rdf-syntax")) {
    const at = /^(\d+):\d+$/.exec(error.errors?.[0]?.path ?? "");
    if (at) return Number(at[1]);
  }
  return block.line;
}
