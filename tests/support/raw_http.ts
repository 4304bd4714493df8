/**
 * HTTP/1.1 over a raw TCP socket: the only way to send a GET with a body, which `fetch`
 * refuses to build. Used to test the hash operation exactly as the seed defines it.
 */

/** A parsed response. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request with `Connection: close` and reads the whole response. */
export async function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string; chunked?: boolean },
): Promise<RawResponse> {
  const target = new URL(url);
  const connection = await Deno.connect({
    hostname: target.hostname,
    port: Number(target.port),
  });
  const encoder = new TextEncoder();
  const body = options.body === undefined ? undefined : encoder.encode(options.body);
  const lines = [
    `${options.method} ${target.pathname}${target.search} HTTP/1.1`,
    "Connection: close",
  ];
  const named = Object.keys(options.headers ?? {}).map((name) => name.toLowerCase());
  if (!named.includes("host")) lines.push(`Host: ${target.host}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    lines.push(`${name}: ${value}`);
  }
  let payload: Uint8Array = new Uint8Array(0);
  if (body && options.chunked) {
    lines.push("Transfer-Encoding: chunked");
    const parts: Uint8Array[] = [];
    for (let offset = 0; offset < body.length; offset += 1000) {
      const slice = body.subarray(offset, offset + 1000);
      parts.push(encoder.encode(`${slice.length.toString(16)}\r\n`), slice, encoder.encode("\r\n"));
    }
    parts.push(encoder.encode("0\r\n\r\n"));
    payload = concat(parts);
  } else if (body) {
    lines.push(`Content-Length: ${body.length}`);
    payload = body;
  }
  await writeAll(connection, concat([encoder.encode(lines.join("\r\n") + "\r\n\r\n"), payload]));
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const read = await connection.read(buffer);
    if (read === null) break;
    chunks.push(buffer.slice(0, read));
  }
  connection.close();
  return parseResponse(new TextDecoder().decode(concat(chunks)));
}

async function writeAll(connection: Deno.Conn, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) written += await connection.write(data.subarray(written));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const result = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

function parseResponse(text: string): RawResponse {
  const split = text.indexOf("\r\n\r\n");
  const head = text.slice(0, split).split("\r\n");
  let body = text.slice(split + 4);
  const status = Number(head[0].split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers["transfer-encoding"] === "chunked") body = dechunk(body);
  return { status, headers, body };
}

function dechunk(text: string): string {
  let result = "";
  let rest = text;
  while (true) {
    const lineEnd = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return result;
    result += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
