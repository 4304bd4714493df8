/**
 * Serving the app through `node:http` (via @hono/node-server) rather than `Deno.serve`:
 * the hash operation is a GET with a body, and only the raw Node request keeps it.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, Server } from "node:http";
import type { Hono } from "hono";
import type { AppEnv } from "./app_env.ts";

/** A running server. */
export interface RunningServer {
  host: string;
  port: number;
  /**
   * Stops accepting connections and closes idle ones; requests in flight get `graceMs`
   * (default 0) to finish before their connections are cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Where and how to listen. */
export interface ServerOptions {
  host: string;
  port: number;
  /**
   * A request whose body has not ended and that receives no byte for this long is cut
   * (`service.http.bodyStallMs`); 0 never cuts one. No other limit applies to how long a
   * body takes: an import streaming gigabytes for an hour is fine while bytes keep coming.
   */
  bodyStallMs?: number;
}

/** Starts listening; resolves once the socket is bound (port 0 picks a free port). */
export function startServer(
  app: Hono<AppEnv>,
  options: ServerOptions,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: options.host, port: options.port },
      (info: AddressInfo) => {
        resolve({
          host: options.host,
          port: info.port,
          close: ({ graceMs = 0 } = {}) =>
            new Promise<void>((done) => {
              const connections = server as unknown as {
                closeIdleConnections?: () => void;
                closeAllConnections?: () => void;
              };
              const cut = setTimeout(() => connections.closeAllConnections?.(), graceMs);
              server.close(() => {
                clearTimeout(cut);
                done();
              });
              connections.closeIdleConnections?.();
            }),
        });
      },
    );
    server.once("error", reject);
    const http = server as unknown as Server;
    // Node's default (300 s for a whole request) cut long streaming imports; stalls are
    // caught by the watch below instead.
    http.requestTimeout = 0;
    const stallMs = options.bodyStallMs ?? 0;
    if (stallMs > 0) http.on("request", (request) => watchBody(request, stallMs));
  });
}

/**
 * Cuts `request`'s connection once its body has received no byte for `stallMs` while the
 * service was waiting for one (nothing read and not yet consumed): a client that stopped
 * sending. A body the service is slow to consume (bytes waiting in the buffer) is not a stall.
 */
function watchBody(request: IncomingMessage, stallMs: number): void {
  if (request.complete) return;
  let bytes = request.socket.bytesRead;
  let since = Date.now();
  const timer = setInterval(() => {
    if (request.complete || request.destroyed) return clearInterval(timer);
    const now = request.socket.bytesRead;
    if (now !== bytes || request.readableLength > 0) {
      bytes = now;
      since = Date.now();
    } else if (Date.now() - since >= stallMs) {
      clearInterval(timer);
      request.socket.destroy(new Error(`no request body byte for ${stallMs} ms`));
    }
  }, Math.max(20, Math.min(1000, Math.floor(stallMs / 4))));
  request.once("close", () => clearInterval(timer));
  request.once("end", () => clearInterval(timer));
}
