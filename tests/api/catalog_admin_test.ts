/**
 * Collections made at run time (`/api/admin/collections`, `/api/admin/workspaces`) on both
 * store backends: made, used at once (an item written and found by search), changed (with
 * If-Match), refused removal while it holds items, removed once empty, still there after a
 * restart on the same data; bad bodies answer 400 naming the field.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  DEMO_WORKSPACE,
  startTestService,
  type StoreBackend,
  storeBackends,
  storeTest,
  type TestService,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const JSON_TYPE = { "Content-Type": "application/json" };

function collectionUri(): string {
  return `https://data.example.org/collection/made-${crypto.randomUUID()}`;
}

function post(service: TestService, path: string, body: unknown): Promise<Response> {
  return service.fetch(path, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
}

function at(uri: string): string {
  return `/api/admin/collections?collection=${encodeURIComponent(uri)}`;
}

for (const backend of storeBackends({ allStores: true })) {
  catalogTest(
    backend,
    "a collection made through the API is used, changed and removed",
    async (service) => {
      const uri = collectionUri();
      const made = await post(service, "/api/admin/collections", {
        workspace: DEMO_WORKSPACE,
        uri,
        label: "Made at run time",
        index: {
          name: `made-${crypto.randomUUID().slice(0, 8)}`,
          fields: [{ name: "title", path: "<http://purl.org/dc/terms/title>" }],
        },
      });
      assert.equal(made.status, 201, await made.clone().text());
      assert.equal(made.headers.get("location"), at(uri));
      const body = await made.json();
      assert.equal(body.source, "api");
      assert.equal(body.name, "Made at run time");
      assert.equal(body.workspace, DEMO_WORKSPACE);
      const etag = made.headers.get("etag")!;
      assert.ok(etag);

      const listed = await (await service.fetch("/api/admin/collections")).json();
      const sources = new Map(
        listed.map((entry: { uri: string; source: string }) => [entry.uri, entry.source]),
      );
      assert.equal(sources.get(uri), "api");
      assert.equal(sources.get(DEMO_COLLECTION), "config");
      const workspaces = await (await service.fetch("/api/workspaces")).json();
      const demo = workspaces.find((workspace: { uri: string }) =>
        workspace.uri === DEMO_WORKSPACE
      );
      assert.ok(
        demo.collections.some((entry: { uri: string; source: string }) =>
          entry.uri === uri && entry.source === "api"
        ),
      );

      // Used at once: an item is written and searched.
      const item = `https://data.example.org/id/made/${crypto.randomUUID()}`;
      const put = await service.fetch(`/api/item?collection=${encodeURIComponent(uri)}`, {
        method: "PUT",
        headers: { "Content-Type": "application/ld+json" },
        body: JSON.stringify({
          "@id": item,
          "http://purl.org/dc/terms/title": "Zanzibar lighthouse",
        }),
      });
      assert.equal(put.status, 201, await put.clone().text());
      await service.services.deps.indexOutbox.drain();
      const search =
        await (await service.fetch(`/api/search?collection=${encodeURIComponent(uri)}&q=zanzibar`))
          .json();
      assert.deepEqual(search.hits.map((hit: { uri: string }) => hit.uri), [item]);

      // Changed, with If-Match: a stale ETag is 412, the current one replaces.
      const change = { label: "Renamed" }; // the index stays as it is
      const stale = await service.fetch(at(uri), {
        method: "PUT",
        headers: { ...JSON_TYPE, "If-Match": '"not-the-revision"' },
        body: JSON.stringify(change),
      });
      await expectProblem(stale, 412, "precondition-failed");
      const replaced = await service.fetch(at(uri), {
        method: "PUT",
        headers: { ...JSON_TYPE, "If-Match": etag },
        body: JSON.stringify(change),
      });
      assert.equal(replaced.status, 200, await replaced.clone().text());
      const after = await replaced.json();
      assert.equal(after.name, "Renamed");
      assert.deepEqual(after.index, body.index);
      // Still searchable: the index was kept.
      const again = await (await service.fetch(
        `/api/search?collection=${encodeURIComponent(uri)}&q=zanzibar`,
      )).json();
      assert.equal(again.total, 1);
      assert.notEqual(replaced.headers.get("etag"), etag);

      // Not removed while it holds an item; removed once empty.
      await expectProblem(
        await service.fetch(at(uri), { method: "DELETE" }),
        409,
        "collection-not-empty",
      );
      const gone = await service.fetch(
        `/api/item?collection=${encodeURIComponent(uri)}&item=${encodeURIComponent(item)}`,
        { method: "DELETE" },
      );
      assert.equal(gone.status, 204);
      assert.equal((await service.fetch(at(uri), { method: "DELETE" })).status, 204);
      await expectProblem(await service.fetch(at(uri)), 404, "collection-not-found");
    },
  );

  catalogTest(
    backend,
    "bad bodies are refused naming the field; customer.yml's collections are read only",
    async (service) => {
      const bad = await post(service, "/api/admin/collections", {
        workspace: DEMO_WORKSPACE,
        uri: collectionUri(),
        index: { name: "Upper Case", fields: [] },
      });
      const problem = await expectProblem(bad, 400, "invalid-settings");
      assert.deepEqual((problem.errors as { path: string }[]).map((error) => error.path), [
        "/index/name",
      ]);
      const noUri = await expectProblem(
        await post(service, "/api/admin/collections", { workspace: DEMO_WORKSPACE }),
        400,
        "invalid-settings",
      );
      assert.ok((noUri.errors as { path: string }[]).some((error) => error.path === "/uri"));
      const badRule = await expectProblem(
        await post(service, "/api/admin/collections", {
          workspace: DEMO_WORKSPACE,
          uri: collectionUri(),
          initialize: [{ name: "broken", construct: "CONSTRUCT { ?this ?p } WHERE {" }],
        }),
        400,
        "invalid-settings",
      );
      assert.equal((badRule.errors as { path: string }[])[0].path, "/initialize/0/construct");
      const badShapes = await expectProblem(
        await post(service, "/api/admin/collections", {
          workspace: DEMO_WORKSPACE,
          uri: collectionUri(),
          shapesTurtle: "this is not turtle",
        }),
        400,
        "invalid-settings",
      );
      assert.equal((badShapes.errors as { path: string }[])[0].path, "/shapesTurtle");
      await expectProblem(
        await post(service, "/api/admin/collections", {
          workspace: "https://nowhere.example/ws",
          uri: collectionUri(),
        }),
        404,
        "workspace-not-found",
      );
      await expectProblem(
        await service.fetch("/api/admin/collections", { method: "POST", body: "{}" }),
        415,
        "unsupported-media-type",
      );
      await expectProblem(
        await service.fetch("/api/admin/collections", {
          method: "POST",
          headers: JSON_TYPE,
          body: "{",
        }),
        400,
        "invalid-json",
      );
      await expectProblem(
        await post(service, "/api/admin/collections", {
          workspace: DEMO_WORKSPACE,
          uri: DEMO_COLLECTION,
        }),
        409,
        "collection-exists",
      );
      await expectProblem(
        await service.fetch(at(DEMO_COLLECTION), { method: "DELETE" }),
        409,
        "collection-from-config",
      );
    },
  );

  Deno.test({
    name:
      `[catalog admin/${backend.name}] a workspace and its collection made at run time survive a restart`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dataDir = await Deno.makeTempDir({ prefix: "rcs-catalog-" });
      const workspace = `https://data.example.org/workspace/made-${crypto.randomUUID()}`;
      const uri = collectionUri();
      let service = await startTestService({ env: backend.env, dataDir });
      try {
        const ws = await post(service, "/api/admin/workspaces", { uri: workspace, label: "Made" });
        assert.equal(ws.status, 201, await ws.clone().text());
        assert.equal(
          (await post(service, "/api/admin/collections", { workspace, uri })).status,
          201,
        );
        await service.close();
        service = await startTestService({ env: backend.env, dataDir });
        const entry = await (await service.fetch(at(uri))).json();
        assert.equal(entry.workspace, workspace);
        assert.equal(entry.source, "api");
        const settings =
          await (await service.fetch("/api/admin/tools/dump-settings", { method: "POST" })).text();
        assert.match(
          settings,
          new RegExp(
            `source: api[\\s\\S]*${uri.replace(/[.]/g, "\\.")}|${
              uri.replace(/[.]/g, "\\.")
            }[\\s\\S]*source: api`,
          ),
        );
        assert.equal((await service.fetch(at(uri), { method: "DELETE" })).status, 204);
      } finally {
        await service.close();
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      }
    },
  });
}

function catalogTest(
  backend: StoreBackend,
  name: string,
  fn: (service: TestService) => Promise<void>,
) {
  storeTest("catalog admin", backend, name, fn);
}
