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
  close(): Promise<void>;
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
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once("error", reject);
  });
}
