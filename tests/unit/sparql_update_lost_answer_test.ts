/**
 * An update whose connection closes before the answer: the client says the outcome is
 * unknown and never sends the update again by itself. A real HTTP/1.1 server on loopback
 * (raw TCP, so the test decides when a connection closes): it answers the first update,
 * reads the second and closes its connection without an answer, and keeps listening, so a
 * silent second try (Deno's fetch retries a request on a new connection when a reused one
 * closes) would arrive and be counted.
 */
import { strict as assert } from "node:assert";
import { SparqlHttpClient, WriteOutcomeUnknown } from "../../src/sparql_protocol/client.ts";
import { isProblem } from "../../src/errors/domain_error.ts";

const decoder = new TextDecoder();

/** Reads one request (head and Content-Length body) from `conn`; false at end of stream. */
async function readRequest(conn: Deno.Conn, buffered: { text: string }): Promise<boolean> {
  const chunk = new Uint8Array(65536);
  for (;;) {
    const end = buffered.text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = Number(/content-length:\s*(\d+)/i.exec(buffered.text.slice(0, end))?.[1] ?? 0);
      if (buffered.text.length >= end + 4 + length) {
        buffered.text = buffered.text.slice(end + 4 + length);
        return true;
      }
    }
    const read = await conn.read(chunk);
    if (read === null) return false;
    buffered.text += decoder.decode(chunk.subarray(0, read));
  }
}

/** A server that drops the connection of request number `dropAt` (1-based) unanswered. */
function startServer(dropAt: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let requests = 0;
  const connections: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      connections.push((async () => {
        const buffered = { text: "" };
        try {
          while (await readRequest(conn, buffered)) {
            if (++requests === dropAt) return; // closed below, unanswered
            await conn.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
          }
        } catch {
          // the client closed its side
        } finally {
          try {
            conn.close();
          } catch { /* already closed */ }
        }
      })());
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/ds/update`,
    requests: () => requests,
    async stop() {
      listener.close();
      await accepting.catch(() => {});
      await Promise.all(connections);
    },
  };
}

function clientFor(url: string): SparqlHttpClient {
  return new SparqlHttpClient({
    queryUrl: url,
    updateUrl: url,
    graphStoreUrl: url,
    timeoutMs: 5000,
    retries: 2,
  });
}

Deno.test("an update whose connection closes unanswered is unknown, and is not sent again", async () => {
  const server = startServer(2);
  const client = clientFor(server.url);
  try {
    await client.update("INSERT DATA { <urn:x:a> <urn:x:p> 1 }", { idempotent: true });
    const error = await client.update("INSERT DATA { <urn:x:a> <urn:x:p> 2 }", {
      idempotent: true,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(
      error instanceof WriteOutcomeUnknown,
      `expected write-outcome-unknown, got ${error instanceof Error ? error.message : error}`,
    );
    // Give a silent second try time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(server.requests(), 2, "the update was sent again without the caller asking");
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("an update to an endpoint that refuses connections is unavailable, never sent", async () => {
  const server = startServer(0);
  const url = server.url;
  await server.stop();
  const client = clientFor(url);
  try {
    const error = await client.update("INSERT DATA { <urn:x:a> <urn:x:p> 1 }").then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(isProblem(error, "store-unavailable"), String(error));
    assert.ok(!(error instanceof WriteOutcomeUnknown));
  } finally {
    client.close();
  }
});
