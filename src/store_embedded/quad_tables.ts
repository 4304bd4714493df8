/**
 * The embedded store's quads on disk: a term dictionary (`term_dictionary.ts`) and one row of
 * four integer ids per quad, in four orders so that every triple pattern of a SPARQL query
 * finds its rows by a prefix of one of them.
 *
 * The graph of a quad is its item's graph name (one named graph per item: `store/item_keys.ts`). The table itself is the
 * GSPO order (`WITHOUT ROWID`: the primary key is the row, no second copy); SPO(G), PO(S)(G)
 * and OS(P)(G) are indexes, which carry the key's remaining columns with them. That is the
 * shape of Oxigraph's and Jena TDB2's quad indexes (GSPO, GPOS, GOSP, SPOG, POSG, OSPG),
 * minus the orders a graph-first pattern needs: a pattern that names its graph either names
 * its subject (GSPO) or is read through the graph-free order and filtered.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Migration } from "../sqlite/local_db.ts";
import { termColumn, TermDictionary, termText } from "./term_dictionary.ts";

/** The secondary orders; created after a conversion has filled the table (faster). */
const QUAD_INDEXES = `CREATE INDEX IF NOT EXISTS quads_spo ON quads(s, p, o);
   CREATE INDEX IF NOT EXISTS quads_pos ON quads(p, o, s);
   CREATE INDEX IF NOT EXISTS quads_osp ON quads(o, s, p);`;

/**
 * Migration 8: the term dictionary and integer quads in place of the text triples of
 * migration 1. An existing file's triples are converted item by item, in the migration's
 * transaction; the text table is dropped.
 */
export const QUAD_TABLES_MIGRATION: Migration = {
  version: 8,
  description: "term dictionary and integer quads in four orders (replacing text triples)",
  sql: `CREATE TABLE terms (
     id INTEGER PRIMARY KEY,
     hash INTEGER NOT NULL,
     term TEXT NOT NULL
   );
   CREATE INDEX terms_by_hash ON terms(hash);
   CREATE TABLE quads (
     g INTEGER NOT NULL,
     s INTEGER NOT NULL,
     p INTEGER NOT NULL,
     o INTEGER NOT NULL,
     PRIMARY KEY (g, s, p, o)
   ) WITHOUT ROWID;
   ALTER TABLE items ADD COLUMN graph INTEGER;`,
  run: convertTextTriples,
};

/**
 * Migration 10: the triples more than one item graph states (a superset: an entry may outlive
 * its last copy but one). The union default graph is a set, so a query over it counts such a
 * triple once (`sparql_to_sql.ts`); while no triple is shared, nothing needs to. Each write
 * adds its shared triples ({@link SHARED_TRIPLES_OF_GRAPH}); the migration finds an existing
 * file's (a scan of the SPO order).
 */
export const SHARED_TRIPLES_MIGRATION: Migration = {
  version: 10,
  description: "the triples several item graphs state (the union default graph is a set)",
  sql: `CREATE TABLE shared_triples (
     s INTEGER NOT NULL,
     p INTEGER NOT NULL,
     o INTEGER NOT NULL,
     PRIMARY KEY (s, p, o)
   ) WITHOUT ROWID;
   INSERT INTO shared_triples (s, p, o)
     SELECT s, p, o FROM quads INDEXED BY quads_spo GROUP BY s, p, o HAVING count(*) > 1;`,
};

/**
 * Records the triples of graph `?1` that another graph states too: one probe of the SPO order
 * per triple of the item just written (blank nodes are the item's own and never match).
 */
export const SHARED_TRIPLES_OF_GRAPH = `INSERT OR IGNORE INTO shared_triples (s, p, o)
  SELECT q.s, q.p, q.o FROM quads q WHERE q.g = ?1 AND EXISTS (
    SELECT 1 FROM quads x WHERE x.s = q.s AND x.p = q.p AND x.o = q.o AND x.g <> q.g)`;

/** Copies migration 1's text triples into the quad tables, then drops them. */
function convertTextTriples(db: DatabaseSync): void {
  const terms = new TermDictionary(db);
  const items = db.prepare("SELECT id, uri FROM items ORDER BY id").all() as {
    id: number;
    uri: string;
  }[];
  const triples = db.prepare(
    `SELECT ${termColumn("s")} AS s, p, ${termColumn("o")} AS o FROM triples WHERE item_id = ?`,
  );
  const setGraph = db.prepare("UPDATE items SET graph = ? WHERE id = ?");
  const insert = db.prepare("INSERT OR IGNORE INTO quads (g, s, p, o) VALUES (?, ?, ?, ?)");
  for (const item of items) {
    const graph = terms.idOf(item.uri);
    setGraph.run(graph, item.id);
    const scoped = (text: string) =>
      text.startsWith("_:") ? `_:i${item.id}_${text.slice(2)}` : text;
    for (const row of triples.all(item.id) as { s: string | Uint8Array; p: string; o: string }[]) {
      insert.run(
        graph,
        terms.idOf(scoped(termText(row.s))),
        terms.idOf(row.p),
        terms.idOf(scoped(termText(row.o))),
      );
    }
  }
  db.exec("DROP TABLE triples");
  db.exec(QUAD_INDEXES);
}
