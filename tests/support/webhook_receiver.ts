/**
 * A webhook endpoint on loopback for the webhook suites, and the Standard Webhooks
 * verification written apart from the service's signing.
 */
import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ItemChange as Change } from "../../src/store/change_feed.ts";

/** One request the receiver got, and what it answered. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  answered: number;
}

/** What `Receiver.answer` returns to leave a request unanswered. */
export const HANG = 0;

/** A fresh Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))));
}

/**
 * A webhook endpoint on loopback; `answer` decides each status from the change. (node:http:
 * the app under test replaces the global Response with one Deno.serve does not take.)
 */
export class Receiver {
  readonly received: Received[] = [];
  /** The path of every request. */
  readonly paths: string[] = [];
  answer: (change: Change) => number = () => 200;
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<Receiver> {
    const receiver: Receiver = new Receiver(createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => body += chunk);
      request.on("end", () => {
        receiver.paths.push(request.url ?? "");
        const answered = receiver.answer(JSON.parse(body));
        const header = (name: string) => String(request.headers[name] ?? "");
        receiver.received.push({
          id: header("webhook-id"),
          timestamp: header("webhook-timestamp"),
          signature: header("webhook-signature"),
          body,
          answered,
        });
        if (answered === HANG) return; // no answer at all
        const location = answered >= 300 && answered < 400 ? { Location: "/elsewhere" } : {};
        response.writeHead(answered, location).end();
      });
    }));
    await new Promise<void>((resolve) => receiver.#server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  /** The changes it accepted (answered 2xx), in arrival order. */
  accepted(): Change[] {
    return this.received.filter((r) => r.answered >= 200 && r.answered < 300)
      .map((r) => JSON.parse(r.body));
  }

  async until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/**
 * The spec's verification, written apart from the service's signing: the key is the base64
 * after `whsec_`, the signed content `${id}.${timestamp}.${body}`, and one of the
 * space-separated `v1,<base64>` signatures must be its HMAC-SHA256.
 */
export async function verifySignature(secret: string, got: Received): Promise<boolean> {
  const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice("whsec_".length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const content = new TextEncoder().encode(`${got.id}.${got.timestamp}.${got.body}`);
  for (const signature of got.signature.split(" ")) {
    const [version, mac] = signature.split(",");
    if (version !== "v1" || !mac) continue;
    if (await crypto.subtle.verify("HMAC", key, fromBase64(mac), content)) return true;
  }
  return false;
}
