/**
 * What a write with typed literals costs the SPARQL store, counted in the requests it sends
 * to the real store through a forwarding HTTP server: on a store that keeps lexical forms
 * (Fuseki's in-memory dataset) one update and one receipt query, whatever the forms (no
 * staging, no read-back: issue 40's fix must not add one there); on a store that rewrites
 * them (Virtuoso) the write is staged through the Graph Store Protocol and read back in
 * N-Triples, the format every item read takes, and its record carries the hash of that.
 */
import { strict as assert } from "node:assert";
import { Parser, type Quad } from "n3";
import { openCheckedStore, sparqlStoreTests } from "../support/sparql_stores.ts";

const RUN = `https://test.example.org/write-cost/${crypto.randomUUID()}`;
const XSD = "http://www.w3.org/2001/XMLSchema#";

/** What one request the store sent was, by the way the SPARQL protocols tell them apart. */
function kindOf(request: Request): string {
  if (request.method === "PUT") return "graph store put";
  if (request.headers.get("content-type")?.startsWith("application/sparql-update")) {
    return "update";
  }
  return request.headers.get("accept")?.startsWith("application/n-triples")
    ? "n-triples read"
    : "query";
}

/**
 * An HTTP server that forwards every request to `target`'s origin and notes the kind of each
 * the store answered (a digest challenge, 401, is part of the request it challenged).
 */
function forwarder(target: string) {
  const origin = new URL(target).origin;
  const sent: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    const answer = await fetch(origin + url.pathname + url.search, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
    });
    if (answer.status !== 401) sent.push(kindOf(request));
    // fetch has decoded the body already.
    const answered = new Headers(answer.headers);
    for (const name of ["content-encoding", "content-length"]) answered.delete(name);
    return new Response(answer.body, { status: answer.status, headers: answered });
  });
  const rewrite = (url: string) => {
    const rewritten = new URL(url);
    rewritten.host = `127.0.0.1:${server.addr.port}`;
    return rewritten.href;
  };
  return { sent, rewrite, close: () => server.shutdown() };
}

function quads(uri: string, forms: string[]): Quad[] {
  return new Parser({ format: "N-Triples" }).parse(
    forms.map((form, n) => `<${uri}> <urn:p${n}> ${form} .`).join("\n"),
  );
}

const CANONICAL = [`"42"^^<${XSD}integer>`, `"true"^^<${XSD}boolean>`, `"1.5"^^<${XSD}decimal>`];
const OTHER_FORMS = [`"042"^^<${XSD}integer>`, `"1"^^<${XSD}boolean>`, `"1.0E0"^^<${XSD}double>`];

sparqlStoreTests("a write with typed literals: what it sends the store", async (endpoints) => {
  const proxy = forwarder(endpoints.queryUrl);
  const hashed: Quad[][] = [];
  const store = await openCheckedStore({
    ...endpoints,
    queryUrl: proxy.rewrite(endpoints.queryUrl),
    updateUrl: proxy.rewrite(endpoints.updateUrl),
    graphStoreUrl: proxy.rewrite(endpoints.graphStoreUrl),
  }, {
    hash: (read) => {
      hashed.push(read);
      return Promise.resolve(`hash of ${read.length} as read`);
    },
  });
  try {
    const rewrites = (await store.checkCapabilities()).rewritesLiterals;
    // The collection's feed head is made once, before its first write (an update of its
    // own: sparql_change_feed.ts); made first, so that each write below counts its own.
    await store.changes.headReady(RUN);
    for (const [label, forms] of [["canonical", CANONICAL], ["other", OTHER_FORMS]] as const) {
      const uri = `${RUN}/${label}`;
      proxy.sent.length = 0;
      hashed.length = 0;
      const record = await store.createItem({
        collection: RUN,
        uri,
        quads: quads(uri, forms),
        hash: "as written",
      });
      const kinds = [...proxy.sent];
      if (!rewrites) {
        // Fuseki --mem keeps forms: the body's own hash, and no request beyond the write's.
        assert.deepEqual(kinds, ["update", "query"], label);
        assert.equal(record.hash, "as written");
        assert.equal(hashed.length, 0);
      } else {
        // Staged, read back in N-Triples (as reads read), hashed as read.
        assert.deepEqual(kinds, ["graph store put", "n-triples read", "update", "query"], label);
        assert.equal(hashed.length, 1);
        assert.equal(record.hash, `hash of ${forms.length} as read`);
        // What reads serve is what was hashed: an N-Triples read of the item finds the same.
        const read = (await store.readItem(RUN, uri)).quads;
        const served: string[] = [];
        for await (const quad of read) served.push(quad.object.id);
        assert.deepEqual(served.sort(), hashed[0].map((quad) => quad.object.id).sort());
      }
      await store.deleteItem(RUN, uri);
    }
  } finally {
    await store.close();
    await proxy.close();
  }
});
