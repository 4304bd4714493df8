/**
 * src/bulk/until_stopped.ts: a body's chunks until its reader is told to stop, with one
 * subscription to the stop signal for the whole body (a subscription per chunk kept every
 * chunk of an import in memory).
 */
import { strict as assert } from "node:assert";
import { ReadStopped, untilStopped } from "../../src/bulk/until_stopped.ts";

/** A promise that counts the reactions added to it (and to promises derived from it). */
class CountedPromise<T> extends Promise<T> {
  static reactions = 0;
  // deno-lint-ignore no-explicit-any
  override then<A = T, B = never>(onFulfilled?: any, onRejected?: any): Promise<A | B> {
    CountedPromise.reactions++;
    return super.then(onFulfilled, onRejected);
  }
}

function stopSignal() {
  let stop!: () => void;
  const stopping = new CountedPromise<void>((resolve) => stop = resolve);
  return { stopping, stop };
}

async function* chunks(count: number): AsyncIterable<Uint8Array> {
  for (let n = 0; n < count; n++) yield new Uint8Array([n % 256]);
}

Deno.test("untilStopped passes every chunk through when nothing stops it", async () => {
  const { stopping } = stopSignal();
  const read: number[] = [];
  for await (const chunk of untilStopped(chunks(300), stopping, () => "stopped")) {
    read.push(chunk[0]);
  }
  assert.equal(read.length, 300);
  assert.deepEqual(read.slice(0, 3), [0, 1, 2]);
});

Deno.test("untilStopped subscribes to the stop signal once, however many chunks", async () => {
  const { stopping } = stopSignal();
  CountedPromise.reactions = 0;
  let read = 0;
  for await (const _ of untilStopped(chunks(1000), stopping, () => "stopped")) read++;
  assert.equal(read, 1000);
  assert.ok(CountedPromise.reactions <= 2, `${CountedPromise.reactions} reactions for 1000 chunks`);
});

Deno.test("untilStopped ends a read that waits for data with the stop's reason", async () => {
  const { stopping, stop } = stopSignal();
  let closed = false;
  const silent: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise<IteratorResult<Uint8Array>>(() => {}),
      return: () => {
        closed = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
  const reading = (async () => {
    for await (const _ of untilStopped(silent, stopping, () => "the claim was lost")) {
      // nothing arrives
    }
  })();
  stop();
  await assert.rejects(reading, (error) => {
    assert.ok(error instanceof ReadStopped);
    assert.equal(error.message, "the claim was lost");
    return true;
  });
  assert.ok(closed, "the body's iterator is closed");
});
