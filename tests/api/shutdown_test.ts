/**
 * Graceful shutdown: on SIGTERM the service stops accepting connections, lets a request in
 * flight finish and answer, then exits 0.
 */
import { strict as assert } from "node:assert";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION } from "../support/service.ts";

Deno.test("SIGTERM lets a request in flight finish, then exits 0", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-shutdown-" });
  const service = await startServiceProcess({ SERVICE_DATA_DIR: dataDir });
  try {
    const target = new URL(service.url);
    const body = new TextEncoder().encode(
      `<https://ex.example.org/a> <https://ex.example.org/p> "in flight" .\n`,
    );
    const connection = await Deno.connect({
      hostname: target.hostname,
      port: Number(target.port),
    });
    const head = [
      `POST /api/item/hash?collection=${encodeURIComponent(DEMO_COLLECTION)} HTTP/1.1`,
      `Host: ${target.host}`,
      "Content-Type: application/n-triples",
      `Content-Length: ${body.length}`,
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    await connection.write(new TextEncoder().encode(head));
    await connection.write(body.subarray(0, 10));
    // The request has started; now the service is asked to stop.
    await new Promise((resolve) => setTimeout(resolve, 300));
    Deno.kill(service.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    // New connections are refused while the one in flight finishes.
    await assert.rejects(fetch(`${service.url}/health`));
    await connection.write(body.subarray(10));
    const chunks: Uint8Array[] = [];
    for await (const chunk of connection.readable) chunks.push(chunk);
    const response = new TextDecoder().decode(
      new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
    );
    assert.match(response, /^HTTP\/1\.1 200 /);
    assert.match(response, /"quads":1/);
    const status = await service.status;
    assert.equal(status.code, 0);
  } finally {
    await service.kill();
    await Deno.remove(dataDir, { recursive: true });
  }
});
