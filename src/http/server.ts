/**
 * Serving the app through `node:http` (via @hono/node-server) rather than `Deno.serve`:
 * the hash operation is a GET with a body, and only the raw Node request keeps it.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
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

/** Starts listening; resolves once the socket is bound (port 0 picks a free port). */
export function startServer(
  app: Hono<AppEnv>,
  options: { host: string; port: number },
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
  });
}
