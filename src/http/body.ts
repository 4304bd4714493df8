/**
 * Reading request bodies with a byte limit enforced while reading.
 *
 * Bodies come from the raw Node request when there is one, because the Fetch `Request`
 * that Hono builds drops the body of a GET (the hash operation is a GET with a body).
 * A declared `Content-Length` over the limit is refused before a byte is read; a chunked
 * body is refused as soon as the running total passes the limit.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { DomainError } from "../errors/domain_error.ts";

/** 413 for a body over the configured limit. */
export function bodyTooLarge(limit: number): DomainError {
  return new DomainError("body-too-large", {
    detail: `The request body exceeds service.http.maxBodyBytes (${limit} bytes).`,
  });
}

/**
 * The body as it arrives, for routes that stream it (bulk import) rather than read it
 * whole: no limit here, the reader bounds what it holds.
 */
export function bodyStream(c: Context<AppEnv>): AsyncIterable<Uint8Array> {
  const incoming = c.env?.incoming;
  if (incoming && !incoming.readableDidRead) return incoming;
  const body = c.req.raw.body;
  return body ?? (async function* () {})();
}

/** Reads the whole body as bytes, refusing anything over `limit` bytes. */
export async function readBodyBytes(c: Context<AppEnv>, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  const incoming = c.env?.incoming;
  const source: AsyncIterable<Uint8Array> | undefined = incoming && !incoming.readableDidRead
    ? incoming
    : c.req.raw.body ?? undefined;
  if (!source) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > limit) {
      incoming?.resume(); // drain the rest so the connection can answer the 413 cleanly
      throw bodyTooLarge(limit);
    }
    chunks.push(chunk);
  }
  if (chunks.length === 1) return chunks[0];
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads the body as UTF-8 text (400 when it is not valid UTF-8). */
export async function readBodyText(c: Context<AppEnv>, limit: number): Promise<string> {
  const bytes = await readBodyBytes(c, limit);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new DomainError("invalid-encoding", { detail: "Bodies must be UTF-8." });
  }
}
