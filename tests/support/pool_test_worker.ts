/**
 * A worker for the worker pool's tests: answers after a delay, throws a domain error, or
 * dies, as each task asks.
 */
/// <reference lib="deno.worker" />
import { DomainError } from "../../src/errors/domain_error.ts";
import { errorToWire } from "../../src/errors/error_wire.ts";
import type { ToWorker } from "../../src/items/worker_pool.ts";

/** What a test task asks the worker to do. */
export type TestTask =
  | { kind: "echo"; value: number; delayMs?: number }
  | { kind: "refuse" }
  | { kind: "die" };

let greeting = "";

self.onmessage = async (event: MessageEvent<ToWorker<TestTask>>) => {
  const message = event.data;
  if ("init" in message) {
    greeting = String(message.init);
    return;
  }
  if ("close" in message) {
    // Set up as "silent": a worker that never says it released what it holds.
    if (greeting === "silent") return;
    // Releasing takes a while.
    setTimeout(() => self.postMessage({ closed: true }), 50);
    return;
  }
  const { id, task } = message;
  if (task.kind === "die") {
    // An error nobody catches ends the worker, as a crash in a native module would.
    setTimeout(() => {
      throw new Error("worker crashed on purpose");
    });
    return;
  }
  if (task.kind === "refuse") {
    const error = new DomainError("rdf-syntax", {
      detail: "The thing is bad.",
      errors: [{ path: "3:7", message: "here" }],
      extensions: { line: 3 },
    });
    self.postMessage({ id, ok: false, error: errorToWire(error) });
    return;
  }
  if (task.delayMs) await new Promise((resolve) => setTimeout(resolve, task.delayMs));
  self.postMessage({ id, ok: true, value: `${greeting}${task.value}` });
};
