/**
 * The capability check the service runs on its SPARQL store before it starts: on scratch
 * graphs of its own it tries each behaviour the store relies on, and refuses to start
 * (`StoreIncapable`, exit 2 in main.ts) naming the first one the store lacks and what the
 * store answered, rather than corrupt data on a store it cannot drive:
 *
 * - **update**: an `INSERT DATA` is applied (the account may write);
 * - **guarded create**: a guarded insert (`whenAbsent`) applies once, and not again when
 *   its guard no longer holds;
 * - **receipt**: the receipt query tells an applied write from one that was not;
 * - **graph store**: a Graph Store Protocol PUT of more triples than a page lands whole;
 * - **paging**: a page of {@link PAGE_ROWS} rows comes back whole (the store's row cap is
 *   above it), and a pattern update copies that many triples (no update size limit bites);
 * - **user view** (with a separate user-query account): that account cannot read the
 *   metadata graph.
 *
 * It also learns, without refusing: whether the store rewrites literal forms
 * (`rewritesLiterals`), the row cap it states (`X-SPARQL-MaxRows`, or the limit its refusal
 * of a large sorted query names), and the product and version it names in its `Server`
 * header.
 */
import { DomainError } from "../errors/domain_error.ts";
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { SPARQL_RESULTS_JSON } from "../sparql_protocol/results_formats.ts";
import { readSmallSparqlJsonResults } from "../sparql_protocol/results_json.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { isBound, PAGE_ROWS, whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import { constructEach } from "./graph_triples.ts";

/** What the check found. */
export interface StoreCapabilities {
  /** The store's `Server` header (product and version), when it sends one. */
  product?: string;
  /** The store changes lexical forms of typed literals ("042" back as "42"). */
  rewritesLiterals: boolean;
  /** Most rows the store answers a query with, when it says (`X-SPARQL-MaxRows`). */
  rowCap?: number;
  /** Graphs of the store's own that user queries must not name. */
  systemGraphs: string[];
  /**
   * One query sees one committed state (Fuseki: a read transaction). Virtuoso reads at
   * "read committed": parts of one query may see either side of a commit. Not something a
   * probe can catch reliably, so it is known per product.
   */
  snapshotReads: boolean;
}

/** The store lacks a behaviour the service relies on. */
export class StoreIncapable extends DomainError {
  constructor(readonly behaviour: string, answer: string) {
    super("store-incapable", {
      detail: `The SPARQL store fails the start-up check "${behaviour}": ${answer}`,
    });
  }
}

/**
 * Every update of the check may be sent again after a transient refusal (a Virtuoso deadlock
 * when several instances start at once): each writes fixed triples into graphs of its own, or
 * is guarded, so a second application changes nothing.
 */
const PROBE_UPDATE = { idempotent: true };

/** Literals in forms a store may rewrite, each with the form written. */
const LITERAL_SAMPLES = [
  `"042"^^<http://www.w3.org/2001/XMLSchema#integer>`,
  `"1.50"^^<http://www.w3.org/2001/XMLSchema#decimal>`,
  `"1.0E0"^^<http://www.w3.org/2001/XMLSchema#double>`,
  `"1"^^<http://www.w3.org/2001/XMLSchema#boolean>`,
];

/** Virtuoso's own graphs, which its default graph (all graphs) would show. */
const VIRTUOSO_SYSTEM_GRAPHS = [
  "http://www.openlinksw.com/schemas/virtrdf#",
  "http://www.w3.org/ns/ldp#",
  "http://localuriqaserver/sparql",
  "http://www.w3.org/2002/07/owl#",
];

/** Runs the check on `client`'s store (see the module comment). */
export async function probeCapabilities(
  client: SparqlHttpClient,
  userClient: SparqlHttpClient,
  options: { metadataGraph: string; separateUserAccount: boolean },
): Promise<StoreCapabilities> {
  const scratch = `${METADATA_NAMESPACE}probe:${crypto.randomUUID()}`;
  const copy = `${scratch}:copy`;
  const [graph, copyGraph] = [iriToSparql(scratch), iriToSparql(copy)];
  try {
    await step(
      "update",
      () =>
        client.update(
          `INSERT DATA { GRAPH ${graph} { ${graph} <${METADATA_NAMESPACE}p> 1 } }`,
          PROBE_UPDATE,
        ),
    );

    // Guarded create, twice: the second must not apply; the receipt query must tell.
    const guarded = (receipt: string) =>
      `${PROLOGUE}INSERT { GRAPH ${graph} { <urn:x-probe:item> rcs:collection "c" .
        <${receipt}> rcs:receiptFor <urn:x-probe:item> } }
      WHERE { ${whenAbsent(`GRAPH ${graph} { <urn:x-probe:item> rcs:collection ?any }`)} }`;
    const [first, second] = [`urn:x-probe:r1`, `urn:x-probe:r2`];
    await step("guarded create", () => client.update(guarded(first), PROBE_UPDATE));
    await step("guarded create", () => client.update(guarded(second), PROBE_UPDATE));
    const receipts = await step("receipt", () =>
      selectRows(
        client,
        `SELECT ?n ?applied WHERE { VALUES (?n ?receipt) { (1 <${first}>) (2 <${second}>) }
           OPTIONAL { GRAPH ${graph} { ?receipt rcs:receiptFor ?item } BIND(true AS ?applied) } }`,
      ));
    const applied = (n: number) =>
      isBound(receipts.find((row) => row.get("n")?.value === String(n)), "applied");
    if (!applied(1)) {
      throw new StoreIncapable(
        "receipt",
        "a guarded insert that applied left no receipt it could read",
      );
    }
    if (applied(2)) {
      throw new StoreIncapable(
        "guarded create",
        "an insert guarded by FILTER NOT EXISTS applied although its pattern existed",
      );
    }

    // A page's worth and one more, through the Graph Store Protocol.
    const lines = Array.from(
      { length: PAGE_ROWS + 1 },
      (_, n) => `<urn:x-probe:s${n}> <urn:x-probe:p> "${n}" .`,
    );
    await step("graph store", () => client.putGraph(copy, lines.join("\n") + "\n"));
    const response = await step("paging", () =>
      client.query(
        `SELECT ?s WHERE { GRAPH ${copyGraph} { ?s ?p ?o } } LIMIT ${PAGE_ROWS + 1}`,
        SPARQL_RESULTS_JSON,
      ));
    const maxRows = Number(response.headers.get("X-SPARQL-MaxRows") ?? NaN);
    const page = await readSmallSparqlJsonResults(response.body!, 16 << 20);
    const rows = page.kind === "bindings" ? page.rows.length : -1;
    if (rows !== PAGE_ROWS + 1) {
      throw new StoreIncapable(
        "paging",
        `a query for ${PAGE_ROWS + 1} rows answered ${rows}` +
          (Number.isFinite(maxRows) ? ` (X-SPARQL-MaxRows: ${maxRows})` : "") +
          "; raise the store's row cap (Virtuoso: ResultSetMaxRows)",
      );
    }
    // A store that refuses to sort more rows than some number (Virtuoso: SR353, 10,000) says
    // so when asked for more; user queries are then asked for no more than that.
    let sortCap: number | undefined;
    try {
      const sorted = await client.query(
        `SELECT ?s WHERE { GRAPH ${copyGraph} { ?s ?p ?o } } ORDER BY ?s LIMIT 100000001`,
        SPARQL_RESULTS_JSON,
      );
      await sorted.body?.cancel();
    } catch (error) {
      const said = error instanceof Error ? error.message : String(error);
      if ((error as DomainError).kind === "unavailable") throw error;
      sortCap = Number(/only (\d+) are allowed/i.exec(said)?.[1] ?? PAGE_ROWS);
    }
    await step("update size", () =>
      client.update(
        `INSERT { GRAPH ${graph} { ?s ?p ?o } } WHERE { GRAPH ${copyGraph} { ?s ?p ?o } }`,
        PROBE_UPDATE,
      ));
    const copied = await selectRows(
      client,
      `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ${graph} { ?s <urn:x-probe:p> ?o } }`,
    );
    const count = Number(copied[0]?.get("n")?.value);
    if (count !== PAGE_ROWS + 1) {
      throw new StoreIncapable(
        "update size",
        `a pattern update copying ${PAGE_ROWS + 1} triples copied ${count}`,
      );
    }

    // Literal forms: written, read back, compared.
    await client.update(
      `INSERT DATA { GRAPH ${graph} { ${
        LITERAL_SAMPLES.map((literal, n) => `<urn:x-probe:l${n}> <urn:x-probe:l> ${literal} .`)
          .join(" ")
      } } }`,
      PROBE_UPDATE,
    );
    // Read as every read of an item reads them (N-Triples): the forms that matter are those
    // reads serve, and a store's answer formats may differ (graph_triples.ts).
    const literals: { s: string; o: string }[] = [];
    await constructEach(
      client,
      `CONSTRUCT { ?s <urn:x-probe:l> ?o } WHERE { GRAPH ${graph} { ?s <urn:x-probe:l> ?o } }`,
      (quad) => literals.push({ s: quad.subject.value, o: quad.object.value }),
    );
    const rewritesLiterals = literals.length !== LITERAL_SAMPLES.length ||
      literals.some((literal) => {
        const n = Number(literal.s.slice("urn:x-probe:l".length));
        return !LITERAL_SAMPLES[n]?.startsWith(`"${literal.o}"^^`);
      });

    if (options.separateUserAccount) {
      // A record-like triple in the metadata graph itself, which that account must not see.
      const meta = iriToSparql(options.metadataGraph);
      await client.update(
        `INSERT DATA { GRAPH ${meta} { ${graph} <${METADATA_NAMESPACE}probe> 1 } }`,
        PROBE_UPDATE,
      );
      try {
        const seen = await step(
          "user view",
          () => selectRows(userClient, `SELECT ?s WHERE { GRAPH ${meta} { ?s ?p ?o } } LIMIT 1`),
        );
        if (seen.length > 0) {
          throw new StoreIncapable(
            "user view",
            "the user-query account reads the service's metadata graph; make that graph " +
              "private to it (docs/backends.md)",
          );
        }
      } finally {
        await client.update(
          `DELETE DATA { GRAPH ${meta} { ${graph} <${METADATA_NAMESPACE}probe> 1 } }`,
          PROBE_UPDATE,
        );
      }
    }
    const product = client.server?.trim();
    const virtuoso = /virtuoso/i.test(product ?? "");
    return {
      snapshotReads: !virtuoso,
      product,
      rewritesLiterals,
      rowCap: [maxRows, sortCap ?? NaN].filter(Number.isFinite).sort((a, b) => a - b)[0],
      systemGraphs: virtuoso ? VIRTUOSO_SYSTEM_GRAPHS : [],
    };
  } finally {
    await client.update(`DROP SILENT GRAPH ${graph} ; DROP SILENT GRAPH ${copyGraph}`, PROBE_UPDATE)
      .catch(() => {});
  }
}

/** Runs one request of the check; a refusal names the behaviour and the store's answer. */
async function step<T>(behaviour: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreIncapable) throw error;
    if ((error as DomainError).kind === "unavailable") throw error; // not there: not incapable
    throw new StoreIncapable(behaviour, error instanceof Error ? error.message : String(error));
  }
}
