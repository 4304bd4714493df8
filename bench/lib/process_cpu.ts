/**
 * CPU time of local processes from Linux /proc, so a bench can say where a request's cost
 * goes (the service, the triple store, the load generator) and not only how long it took.
 */

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A process, or one thread of it (its main thread's id is the process's). */
export type Measured = number | { pid: number; thread: number } | undefined;

/**
 * User + system CPU seconds a process (or one of its threads) has used so far, or undefined
 * if it cannot be read.
 */
export function cpuSeconds(pid: number, thread?: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(
      thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
    );
    // The command name (field 2) may hold spaces; the fields after its ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The PID of the first process whose command line contains `pattern`, if any. */
export function findProcess(pattern: string): number | undefined {
  try {
    const output = new Deno.Command("pgrep", { args: ["-f", "-o", pattern], stdout: "piped" })
      .outputSync();
    const pid = Number(new TextDecoder().decode(output.stdout).trim().split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds used by some processes between `start()` and `stop()`. */
export class CpuMeter {
  readonly #measured: Measured[];
  #before: (number | undefined)[] = [];

  /** Undefined PIDs (processes not found) measure as undefined. */
  constructor(measured: Measured[]) {
    this.#measured = measured;
  }

  start(): void {
    this.#before = this.#measured.map(read);
  }

  /** CPU seconds of each process or thread since `start()`, in the constructor's order. */
  stop(): (number | undefined)[] {
    return this.#measured.map((measured, i) => {
      const start = this.#before[i];
      const end = read(measured);
      return start === undefined || end === undefined ? undefined : end - start;
    });
  }
}

function read(measured: Measured): number | undefined {
  if (measured === undefined) return undefined;
  return typeof measured === "number"
    ? cpuSeconds(measured)
    : cpuSeconds(measured.pid, measured.thread);
}
