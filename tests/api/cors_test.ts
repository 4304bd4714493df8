/**
 * CORS: listed origins get preflights answered and readable responses, others get no CORS
 * header; without tokens a listed origin passes the foreign-caller check, others do not.
 */
import { strict as assert } from "node:assert";
import { DEMO_COLLECTION, startTestService, uniqueItemUri } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const LISTED = "https://app.example.org";
const ALSO_LISTED = "http://localhost:5173";
const UNLISTED = "https://evil.example";
const TOKEN = "cors-editor-token-0123456789";

/** The comma-separated list of a header, lower-cased, for membership checks. */
function listOf(response: Response, header: string): string[] {
  return (response.headers.get(header) ?? "").split(",").map((v) => v.trim().toLowerCase());
}

function preflight(url: string, origin: string): Promise<Response> {
  return fetch(`${url}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "PUT",
      "Access-Control-Request-Headers": "authorization, content-type, if-match",
    },
  });
}

Deno.test({
  name: "with tokens: listed origins get preflights and readable responses, others nothing",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({
      env: { SERVICE_HTTP_CORS_ORIGINS: `${LISTED}, ${ALSO_LISTED}`, SERVICE_EDITOR_TOKEN: TOKEN },
    });
    try {
      for (const origin of [LISTED, ALSO_LISTED]) {
        const answer = await preflight(service.url, origin);
        assert.equal(answer.status, 204, origin);
        assert.equal(answer.headers.get("access-control-allow-origin"), origin);
        assert.ok(listOf(answer, "vary").includes("origin"));
        for (const method of ["get", "put", "post", "delete"]) {
          assert.ok(listOf(answer, "access-control-allow-methods").includes(method), method);
        }
        for (const header of ["authorization", "content-type", "if-match", "if-none-match"]) {
          assert.ok(listOf(answer, "access-control-allow-headers").includes(header), header);
        }
        assert.equal(answer.headers.get("access-control-max-age"), "600");
        await answer.body?.cancel();
      }
      const refused = await preflight(service.url, UNLISTED);
      for (const [name] of refused.headers) assert.ok(!name.startsWith("access-control-"), name);
      await refused.body?.cancel();

      const uri = uniqueItemUri("cors");
      const created = await service.fetch(
        `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
        {
          method: "PUT",
          headers: {
            Origin: LISTED,
            Authorization: `Bearer ${TOKEN}`,
            "Content-Type": "text/turtle",
          },
          body: `<${uri}> <http://purl.org/dc/terms/title> "t" .`,
        },
      );
      assert.equal(created.status, 201);
      assert.equal(created.headers.get("access-control-allow-origin"), LISTED);
      for (const header of ["etag", "location", "x-request-id", "x-results-truncated"]) {
        assert.ok(listOf(created, "access-control-expose-headers").includes(header), header);
      }
      await created.body?.cancel();

      const read = await service.fetch("/health", { headers: { Origin: LISTED } });
      assert.equal(read.headers.get("access-control-allow-origin"), LISTED);
      assert.ok(listOf(read, "vary").includes("origin"));
      await read.body?.cancel();
      // A page must be able to read why it was refused.
      const anonymous = await service.fetch("/openapi.json", { headers: { Origin: LISTED } });
      assert.equal(anonymous.headers.get("access-control-allow-origin"), LISTED);
      await expectProblem(anonymous, 401, "unauthorized");

      const foreign = await service.fetch("/health", { headers: { Origin: UNLISTED } });
      for (const [name] of foreign.headers) assert.ok(!name.startsWith("access-control-"), name);
      assert.ok(listOf(foreign, "vary").includes("origin"));
      await foreign.body?.cancel();
    } finally {
      await service.close();
    }
  },
});

Deno.test({
  name: "without tokens: a listed origin passes the foreign-caller check, others are refused",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ env: { SERVICE_HTTP_CORS_ORIGINS: LISTED } });
    try {
      const answer = await preflight(service.url, LISTED);
      assert.equal(answer.status, 204);
      assert.equal(answer.headers.get("access-control-allow-origin"), LISTED);
      await answer.body?.cancel();
      const put = (origin: string) =>
        service.fetch(`/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`, {
          method: "PUT",
          headers: { Origin: origin, "Content-Type": "text/turtle" },
          body: `<${uniqueItemUri("cors")}> <http://purl.org/dc/terms/title> "t" .`,
        });
      const created = await put(LISTED);
      assert.equal(created.status, 201);
      assert.equal(created.headers.get("access-control-allow-origin"), LISTED);
      await created.body?.cancel();
      const refused = await put(UNLISTED);
      assert.equal(refused.headers.get("access-control-allow-origin"), null);
      await expectProblem(refused, 403, "foreign-caller");
      await expectProblem(await preflight(service.url, UNLISTED), 403, "foreign-caller");
    } finally {
      await service.close();
    }
  },
});
