/**
 * The group committer's rules (src/store/group_commit.ts), with a commit function written
 * here: a lone write goes at once, writes queued meanwhile share the next commit within its
 * bounds, each write gets its own outcome, and a stalled commit holds the queue at most
 * `maxWaitMs`.
 */
import { strict as assert } from "node:assert";
import {
  type GroupCommitOptions,
  GroupCommitter,
  type WriteOutcome,
} from "../../src/store/group_commit.ts";

/** A commit that records its groups and finishes when the test says so. */
function controlledCommit() {
  const groups: string[][] = [];
  const finishers: (() => void)[] = [];
  const commit = (writes: string[]): Promise<WriteOutcome<string>[]> => {
    groups.push(writes);
    return new Promise((resolve) => {
      finishers.push(() =>
        resolve(
          writes.map((write) =>
            write.startsWith("bad")
              ? { ok: false, error: new Error(`refused ${write}`) }
              : { ok: true, value: `stored ${write}` }
          ),
        )
      );
    });
  };
  return { groups, commit, finishNext: () => finishers.shift()!() };
}

const OPTIONS: GroupCommitOptions = { maxWrites: 64, maxBytes: 1 << 20, maxWaitMs: 60_000 };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a lone write is committed at once, alone", async () => {
  const { groups, commit, finishNext } = controlledCommit();
  const committer = new GroupCommitter(commit, OPTIONS);
  const result = committer.submit("a", 1);
  assert.deepEqual(groups, [["a"]]);
  finishNext();
  assert.equal(await result, "stored a");
});

Deno.test("writes queued while a commit is in flight share the next one; each fails alone", async () => {
  const { groups, commit, finishNext } = controlledCommit();
  const committer = new GroupCommitter(commit, OPTIONS);
  const first = committer.submit("a", 1);
  const queued = ["b", "bad-c", "d"].map((write) =>
    committer.submit(write, 1).then((value) => ({ value }), (error: Error) => ({ error }))
  );
  assert.deepEqual(groups, [["a"]]);
  finishNext();
  await first;
  await tick();
  assert.deepEqual(groups, [["a"], ["b", "bad-c", "d"]]);
  finishNext();
  const outcomes = await Promise.all(queued);
  assert.deepEqual(outcomes[0], { value: "stored b" });
  assert.equal((outcomes[1] as { error: Error }).error.message, "refused bad-c");
  assert.deepEqual(outcomes[2], { value: "stored d" });
  assert.deepEqual(committer.stats, { groups: 2, writes: 4, largest: 3 });
});

Deno.test("a group is bounded by count and by bytes; a large write still goes alone", async () => {
  const { groups, commit, finishNext } = controlledCommit();
  const committer = new GroupCommitter(commit, { ...OPTIONS, maxWrites: 2, maxBytes: 10 });
  const all = [
    committer.submit("a", 1),
    committer.submit("b", 1),
    committer.submit("c", 1),
    committer.submit("d", 1),
    committer.submit("big", 50),
    committer.submit("e", 6),
    committer.submit("f", 6),
  ];
  for (let i = 0; i < 6; i++) {
    finishNext();
    await tick();
  }
  assert.deepEqual(groups, [["a"], ["b", "c"], ["d"], ["big"], ["e"], ["f"]]);
  await Promise.all(all);
});

Deno.test("a commit that throws fails its whole group, and the next group still goes", async () => {
  let calls = 0;
  const committer = new GroupCommitter<string, string>(async (writes) => {
    calls++;
    await tick();
    if (calls === 2) throw new Error("connection lost");
    return writes.map((write) => ({ ok: true, value: write }));
  }, OPTIONS);
  const first = committer.submit("a", 1);
  const second = [committer.submit("b", 1), committer.submit("c", 1)];
  await first;
  await assert.rejects(second[0], /connection lost/);
  await assert.rejects(second[1], /connection lost/);
  assert.equal(await committer.submit("d", 1), "d");
});

Deno.test("a stalled commit holds the queue at most maxWaitMs; then the next group goes beside it", async () => {
  const { groups, commit, finishNext } = controlledCommit();
  const committer = new GroupCommitter(commit, { ...OPTIONS, maxWaitMs: 30 });
  const stalled = committer.submit("slow", 1);
  const waiting = committer.submit("b", 1);
  await tick();
  assert.deepEqual(groups, [["slow"]]);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(groups, [["slow"], ["b"]]);
  finishNext();
  finishNext();
  assert.equal(await stalled, "stored slow");
  assert.equal(await waiting, "stored b");
});

Deno.test("idle() waits for queued and in-flight commits", async () => {
  const { commit, finishNext } = controlledCommit();
  const committer = new GroupCommitter(commit, OPTIONS);
  const writes = [committer.submit("a", 1), committer.submit("b", 1)];
  let idle = false;
  const waiting = committer.idle().then(() => idle = true);
  finishNext();
  await writes[0];
  await tick();
  assert.equal(idle, false, "b is still in flight");
  finishNext();
  await waiting;
  assert.deepEqual(await Promise.all(writes), ["stored a", "stored b"]);
});
