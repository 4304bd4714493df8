/**
 * Item history on the SPARQL store, against each real store (`[fuseki] …`, `[virtuoso] …`:
 * tests/support/sparql_stores.ts): each write's version is written by the write's own guarded
 * update (`src/store_sparql/sparql_item_history.ts`), numbered per (collection, IRI) across a
 * delete and a re-create, never timed before the version ahead of it, right when two writes
 * of one item share a group's request, read back as the graph reads serve (also for a large
 * item staged through the Graph Store Protocol on a store that rewrites literals), and never
 * shown to the user's queries.
 */
import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { problemOf } from "../../src/http/problem.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { SparqlHttpClient } from "../../src/sparql_protocol/client.ts";
import { METADATA_NAMESPACE } from "../../src/sparql_protocol/service_vocabulary.ts";
import type { SparqlTripleStore } from "../../src/store_sparql/sparql_triple_store.ts";
import type { ItemWrite } from "../../src/store/triple_store.ts";
import { canonicalNQuads } from "../support/rdf_fixtures.ts";
import {
  dropGraphsStartingWith,
  openCheckedStore,
  type SparqlStoreTarget,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

const { namedNode, literal, quad, blankNode } = DataFactory;
const COLLECTION = "https://data.example.org/collection/sparql-history";
const TITLE = namedNode("http://purl.org/dc/terms/title");
const XSD_INTEGER = namedNode("http://www.w3.org/2001/XMLSchema#integer");

/** A store of this run's own graphs; dropped, with everything it wrote, after `fn`. */
async function withStore(
  endpoints: StoreEndpoints,
  target: SparqlStoreTarget,
  fn: (store: SparqlTripleStore, run: string) => Promise<void>,
  config: { maxInlineTriples?: number } = {},
): Promise<void> {
  const run = `urn:rcs-test:history:${crypto.randomUUID()}:`;
  const store = await openCheckedStore(endpoints, {
    metadataGraph: `${run}meta`,
    graphTemplate: `${run}{item}`,
    queryDefaultGraph: target.unionDefaultGraph,
    hash: async (quads) => (await canonicalHash(quads)).hash,
    ...config,
  });
  try {
    await fn(store, run);
  } finally {
    await store.close();
    await dropGraphsStartingWith(endpoints, run);
  }
}

/** An item of a title and an author behind a blank node (labels must come back as written). */
async function write(uri: string, title: string, extra: Partial<ItemWrite> = {}) {
  const author = blankNode("author");
  const quads = [
    quad(namedNode(uri), TITLE, literal(title)),
    quad(namedNode(uri), namedNode("http://purl.org/dc/terms/creator"), author),
    quad(author, namedNode("http://xmlns.com/foaf/0.1/name"), literal(`author of ${title}`)),
  ];
  return { collection: COLLECTION, uri, quads, hash: (await canonicalHash(quads)).hash, ...extra };
}

function itemUri(name: string): string {
  return `https://data.example.org/id/sparql-history/${crypto.randomUUID()}/${name}`;
}

async function rejectsWith(work: Promise<unknown>, slug: string): Promise<void> {
  await assert.rejects(work, (thrown: unknown) => {
    assert.equal(problemOf(thrown)?.slug, slug, String(thrown));
    return true;
  });
}

sparqlStoreTests(
  "versions go on across a delete and a re-create, each with its graph, principal and operation",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const history = store.history;
      const written = history.versionsWritten();
      const uri = itemUri("lifecycle");
      const first = await write(uri, "One", { principal: "token:e1" });
      await store.createItem(first);
      const second = await write(uri, "Two", { principal: "user:sub-2", operation: "import" });
      await store.replaceItem(second);
      // Refused: no version, and not counted.
      await rejectsWith(
        store.replaceItem(await write(uri, "Stale"), { ifMatch: "0".repeat(64) }),
        "precondition-failed",
      );
      await rejectsWith(store.createItem(await write(uri, "Again")), "item-exists");
      await store.deleteItem(COLLECTION, uri, {}, { principal: "token:e2" });
      await rejectsWith(store.deleteItem(COLLECTION, uri), "item-not-found");
      const third = await write(uri, "Three");
      await store.createItem(third);

      const versions = await history.list(COLLECTION, uri, { limit: 10 });
      assert.deepEqual(
        versions.map((v) => [v.version, v.operation, v.principal, v.hash, v.tripleCount]),
        [
          [4, "create", "local", third.hash, 3],
          [3, "delete", "token:e2", null, 0],
          [2, "import", "user:sub-2", second.hash, 3],
          [1, "create", "token:e1", first.hash, 3],
        ],
      );
      const times = versions.map((v) => v.time).reverse();
      assert.deepEqual(times, [...times].sort(), "times never go back");
      assert.ok(times.every((time) => !Number.isNaN(Date.parse(time))), times.join());
      assert.equal(history.versionsWritten() - written, 4, "the metric counts applied writes");

      // Each version's graph as written, blank node labels included; a delete has none.
      for (const [n, expected] of [[1, first], [2, second], [4, third]] as const) {
        const content = await history.read(COLLECTION, uri, n);
        assert.equal(content?.version.hash, expected.hash);
        assert.equal(
          await canonicalNQuads(content!.quads),
          await canonicalNQuads(expected.quads),
        );
        assert.ok(content!.quads.some((q) =>
          q.subject.termType === "BlankNode" &&
          q.subject.value === "author"
        ));
        assert.equal((await canonicalHash(content!.quads)).hash, expected.hash);
      }
      const deleted = await history.read(COLLECTION, uri, 3);
      assert.equal(deleted?.version.operation, "delete");
      assert.deepEqual(deleted?.quads, []);
      assert.equal(await history.read(COLLECTION, uri, 5), undefined);

      // Paging, the latest, and the version current at an instant.
      assert.deepEqual(
        (await history.list(COLLECTION, uri, { limit: 2, before: 4 })).map((v) => v.version),
        [3, 2],
      );
      assert.equal((await history.latest(COLLECTION, uri))?.version, 4);
      assert.equal(await history.at(COLLECTION, uri, new Date(0)), undefined);
      assert.equal((await history.at(COLLECTION, uri, new Date(versions[2].time)))?.version, 2);
      assert.equal((await history.at(COLLECTION, uri, new Date()))?.version, 4);
      // Another collection's item of the same IRI has a history of its own.
      assert.equal(await history.latest(`${COLLECTION}/other`, uri), undefined);
      await store.createItem({
        ...await write(uri, "Elsewhere"),
        collection: `${COLLECTION}/other`,
      });
      assert.deepEqual(
        (await history.list(`${COLLECTION}/other`, uri, { limit: 10 })).map((v) => v.version),
        [1],
      );
      assert.equal((await history.latest(COLLECTION, uri))?.version, 4);
    }),
);

sparqlStoreTests(
  "two writes of one item in one group's request are numbered in order",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const lead = itemUri("lead");
      const uri = itemUri("pair");
      await store.createItem(await write(lead, "lead v1"));
      await store.createItem(await write(uri, "v1"));
      const [v2, v3] = [await write(uri, "v2"), await write(uri, "v3")];
      const before = { ...store.groupCommitStats };
      // The first write goes alone; the two of one item queue behind it, into one group.
      await Promise.all([
        write(lead, "lead v2").then((w) => store.replaceItem(w)),
        store.replaceItem(v2),
        store.replaceItem(v3),
      ]);
      const stats = store.groupCommitStats;
      assert.equal(stats.writes - before.writes, 3);
      assert.equal(stats.groups - before.groups, 2, "the pair shared a request");
      const versions = await store.history.list(COLLECTION, uri, { limit: 10 });
      assert.deepEqual(versions.map((v) => [v.version, v.hash]), [
        [3, v3.hash],
        [2, v2.hash],
        [1, versions[2].hash],
      ]);
      assert.ok(versions[0].time >= versions[1].time);
      assert.equal((await store.getItem(COLLECTION, uri))?.hash, v3.hash);
    }),
);

sparqlStoreTests(
  "a version is never timed before the one ahead of it (another instance's clock ahead)",
  (endpoints, target) =>
    withStore(endpoints, target, async (store, run) => {
      const uri = itemUri("clock");
      await store.createItem(await write(uri, "v1"));
      // The head as another instance, its clock an hour ahead, would have left it.
      const ahead = new Date(Date.now() + 3_600_000).toISOString();
      const head = `${METADATA_NAMESPACE}history:${encodeURIComponent(COLLECTION)}:${
        encodeURIComponent(uri)
      }`;
      const client = new SparqlHttpClient({ ...endpoints, timeoutMs: 60_000, retries: 0 });
      try {
        await client.update(
          `DELETE { GRAPH <${run}meta> { <${head}> <${METADATA_NAMESPACE}lastTime> ?t } }
          INSERT { GRAPH <${run}meta> { <${head}> <${METADATA_NAMESPACE}lastTime> "${ahead}" } }
          WHERE { GRAPH <${run}meta> { <${head}> <${METADATA_NAMESPACE}lastTime> ?t } }`,
        );
      } finally {
        client.close();
      }
      await store.replaceItem(await write(uri, "v2"));
      await store.deleteItem(COLLECTION, uri);
      const versions = await store.history.list(COLLECTION, uri, { limit: 10 });
      assert.deepEqual(versions.map((v) => [v.version, v.time]), [
        [3, ahead],
        [2, ahead],
        [1, versions[2].time],
      ]);
      assert.ok(versions[2].time < ahead);
    }),
);

sparqlStoreTests(
  "a large item staged through the Graph Store Protocol reads back as reads serve it",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const uri = itemUri("large");
      // Typed literals in a form a store may rewrite ("042"): staged and read back there.
      const quads: Quad[] = [quad(namedNode(uri), TITLE, literal("Large"))];
      for (let i = 0; i < 49; i++) {
        quads.push(
          quad(namedNode(uri), namedNode(`urn:p:n${i}`), literal(`0${i}`, XSD_INTEGER)),
        );
      }
      const record = await store.createItem({
        collection: COLLECTION,
        uri,
        quads,
        hash: (await canonicalHash(quads)).hash,
      });
      const content = await store.history.read(COLLECTION, uri, 1);
      assert.equal(content?.version.hash, record.hash);
      assert.equal(content?.version.tripleCount, 50);
      const served: Quad[] = [];
      for await (const q of (await store.readItem(COLLECTION, uri)).quads) served.push(q);
      assert.equal(await canonicalNQuads(content!.quads), await canonicalNQuads(served));
      assert.equal((await canonicalHash(content!.quads)).hash, record.hash);
    }, { maxInlineTriples: 10 }),
);

sparqlStoreTests(
  "the user's queries see no version triples",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const uri = itemUri("hidden");
      const kept = itemUri("kept");
      await store.createItem(await write(kept, "kept"));
      await store.createItem(await write(uri, "v1"));
      await store.replaceItem(await write(uri, "v2"));
      await store.deleteItem(COLLECTION, uri);
      assert.equal((await store.history.list(COLLECTION, uri, { limit: 10 })).length, 3);
      const options = { limit: 10_000, timeoutMs: 60_000 };
      const seen: string[] = [];
      let itemTerms = 0;
      for (
        const query of [
          // By the version vocabulary, in the named graphs and in the default graph (the union
          // on Fuseki here): a full scan would be cut by the row limit on a store every suite
          // shares.
          `SELECT ?v ?p ?o WHERE { GRAPH ?g { ?v <${METADATA_NAMESPACE}versionOf> ?h ; ?p ?o } }`,
          `SELECT * WHERE { ?v <${METADATA_NAMESPACE}versionOf> ?h ; ?p ?o }`,
          `CONSTRUCT { ?v ?p ?o } WHERE { GRAPH ?g { ?v <${METADATA_NAMESPACE}content> ?c ; ?p ?o } }`,
          `CONSTRUCT { ?v ?p ?o } WHERE { ?v <${METADATA_NAMESPACE}operation> ?op ; ?p ?o }`,
          // The items by their IRIs: the kept one is there, the deleted one's versions not.
          `SELECT * WHERE { GRAPH ?g { ?s ?p ?o } VALUES ?s { <${uri}> <${kept}> } }`,
          `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o VALUES ?s { <${uri}> <${kept}> } }`,
        ]
      ) {
        const result = await store.query(query, options);
        const terms = result.kind === "bindings"
          ? result.rows.flatMap((row) => [...row.values()])
          : result.kind === "quads"
          ? result.quads.flatMap((q) => [q.subject, q.predicate, q.object])
          : [];
        itemTerms += terms.filter((term) => term.value === kept).length;
        for (const term of terms) {
          const datatype = term.termType === "Literal" ? term.datatype.value : "";
          if (term.value.startsWith(METADATA_NAMESPACE) || datatype.endsWith("#base64Binary")) {
            seen.push(`${query}: ${term.value}`);
          }
        }
      }
      assert.deepEqual(seen, []);
      assert.ok(itemTerms > 0, "the queries do see item data");
    }),
);

sparqlStoreTests(
  "an item written before the store kept history gets its first version at its next write",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const [kept, deleted] = [itemUri("before-kept"), itemUri("before-deleted")];
      // As the store wrote before it kept history: the same request without the version's
      // operations.
      const operations = store.history.operations;
      store.history.operations = () => [];
      try {
        await store.createItem(await write(kept, "v1"));
        await store.createItem(await write(deleted, "v1"));
      } finally {
        store.history.operations = operations;
      }
      assert.deepEqual(await store.history.list(COLLECTION, kept, { limit: 10 }), []);
      assert.equal(await store.history.latest(COLLECTION, kept), undefined);

      const v2 = await write(kept, "v2");
      await store.replaceItem(v2);
      await store.deleteItem(COLLECTION, deleted);
      await store.replaceItem(await write(kept, "v3"));
      assert.deepEqual(
        (await store.history.list(COLLECTION, kept, { limit: 10 })).map((v) => [
          v.version,
          v.operation,
        ]),
        [[2, "update"], [1, "update"]],
      );
      assert.equal((await store.history.read(COLLECTION, kept, 1))?.version.hash, v2.hash);
      assert.deepEqual(
        (await store.history.list(COLLECTION, deleted, { limit: 10 })).map((v) => [
          v.version,
          v.operation,
        ]),
        [[1, "delete"]],
      );
    }),
);

sparqlStoreTests(
  "two instances rewriting one item at once number its versions without a gap or a repeat",
  (endpoints, target) =>
    withStore(endpoints, target, async (store, run) => {
      // A second instance on the same graphs: its requests run beside the first's.
      const other = await openCheckedStore(endpoints, {
        metadataGraph: `${run}meta`,
        graphTemplate: `${run}{item}`,
        queryDefaultGraph: target.unionDefaultGraph,
      });
      try {
        const uri = itemUri("two-instances");
        await store.createItem(await write(uri, "v0"));
        const rounds = 12;
        const hashes = new Set<string>();
        await Promise.all([store, other].map(async (instance, i) => {
          for (let n = 1; n <= rounds; n++) {
            const next = await write(uri, `instance ${i} write ${n}`);
            hashes.add(next.hash);
            await instance.replaceItem(next);
          }
        }));
        const versions = await store.history.list(COLLECTION, uri, { limit: 100 });
        assert.deepEqual(
          versions.map((v) => v.version),
          Array.from({ length: 2 * rounds + 1 }, (_, k) => 2 * rounds + 1 - k),
        );
        assert.deepEqual(
          new Set(versions.slice(0, -1).map((v) => v.hash)),
          hashes,
          "one version per write",
        );
        for (const version of versions) {
          const content = await store.history.read(COLLECTION, uri, version.version);
          assert.equal(content?.quads.length, 3, `version ${version.version} is one graph`);
          assert.equal((await canonicalHash(content!.quads)).hash, version.hash);
        }
        const times = versions.map((v) => v.time).reverse();
        assert.deepEqual(times, [...times].sort(), "times never go back");
      } finally {
        await other.close();
      }
    }),
);

sparqlStoreTests(
  "the collection as it stood at an instant, paged: each item's version then, none for one deleted or not yet written",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const history = store.history;
      const [kept, changed, deleted, later] = ["kept", "changed", "deleted", "later"].map(itemUri);
      const keptWrite = await write(kept, "Kept");
      await store.createItem(keptWrite);
      const changedFirst = await write(changed, "Changed, first");
      await store.createItem(changedFirst);
      await store.createItem(await write(deleted, "Deleted"));
      await store.deleteItem(COLLECTION, deleted);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const instant = new Date();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.replaceItem(await write(changed, "Changed, second"));
      await store.createItem(await write(later, "Later"));

      // One item a page: the pages go through every item with versions, once each.
      const seen: string[] = [];
      const state = new Map<string, string>();
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await history.stateAt!(COLLECTION, instant, { after, limit: 1 });
        if (page.last === undefined) break;
        seen.push(page.last);
        for (const { version, quads } of page.versions) {
          state.set(version.uri, await canonicalNQuads(quads));
        }
        after = page.last;
      }
      assert.deepEqual([...seen].sort(), [kept, changed, deleted, later].sort());
      assert.deepEqual([...state.keys()].sort(), [kept, changed].sort());
      assert.equal(state.get(kept), await canonicalNQuads(keptWrite.quads));
      assert.equal(state.get(changed), await canonicalNQuads(changedFirst.quads));
    }),
);

sparqlStoreTests(
  "pruning keeps what the rule keeps and always the newest version, a page of items at a time",
  (endpoints, target) =>
    withStore(endpoints, target, async (store) => {
      const history = store.history;
      const [busy, quiet, gone] = ["busy", "quiet", "gone"].map(itemUri);
      await store.createItem(await write(busy, "Busy 1"));
      for (const n of [2, 3, 4]) await store.replaceItem(await write(busy, `Busy ${n}`));
      await store.createItem(await write(quiet, "Quiet"));
      await store.createItem(await write(gone, "Gone"));
      await store.deleteItem(COLLECTION, gone);
      const numbers = async (uri: string) =>
        (await history.list(COLLECTION, uri, { limit: 10 })).map((v) => v.version);

      const counted = await history.countItems!(COLLECTION, { limit: 10 });
      assert.equal(counted.items, 3);
      let removed = 0;
      let after: string | undefined;
      for (;;) {
        const step = await history.prune!(COLLECTION, { keepLast: 2 }, { after, limit: 2 });
        removed += step.removed;
        if (step.last === undefined) break;
        after = step.last;
      }
      assert.equal(removed, 2);
      assert.deepEqual(await numbers(busy), [4, 3]);
      assert.deepEqual(await numbers(quiet), [1]);
      assert.deepEqual(await numbers(gone), [2, 1]);
      // A duration long past keeps only each item's newest, a delete included.
      const all = await history.prune!(COLLECTION, { keepSince: new Date() }, { limit: 10 });
      assert.equal(all.removed, 2);
      assert.deepEqual(await numbers(busy), [4]);
      assert.deepEqual(await numbers(gone), [2]);
      assert.equal((await history.latest(COLLECTION, gone))?.operation, "delete");
      assert.equal(history.versionsPruned!(), 4);
    }),
);
