/**
 * The worker thread of the RDF work pool (`rdf_work.ts`): receives its setup, then runs
 * tasks (`rdf_tasks.ts`) and posts each answer back, errors as data.
 */
/// <reference lib="deno.worker" />
import { errorToWire } from "../errors/error_wire.ts";
import type { FromWorker, ToWorker } from "./worker_pool.ts";
import { type RdfTask, type RdfTaskResult, type RdfTaskSetup, runRdfTask } from "./rdf_tasks.ts";

let setup: RdfTaskSetup = { contexts: {} };

self.onmessage = async (event: MessageEvent<ToWorker<RdfTask>>) => {
  const message = event.data;
  if ("init" in message) {
    setup = message.init as RdfTaskSetup;
    return;
  }
  // Nothing of its own to release.
  if ("close" in message) {
    self.postMessage({ closed: true } satisfies FromWorker<RdfTaskResult>);
    return;
  }
  let answer: FromWorker<RdfTaskResult>;
  try {
    answer = { id: message.id, ok: true, value: await runRdfTask(message.task, setup) };
  } catch (error) {
    answer = { id: message.id, ok: false, error: errorToWire(error) };
  }
  self.postMessage(answer);
};
