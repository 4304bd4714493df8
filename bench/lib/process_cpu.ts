/**
 * CPU time of local processes from Linux /proc, so a bench can say where a request's cost
 * goes (the service, the triple store, the load generator) and not only how long it took.
 */

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far, or undefined if it cannot be read. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
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
  readonly #pids: (number | undefined)[];
  #before: (number | undefined)[] = [];

  /** Undefined PIDs (processes not found) measure as undefined. */
  constructor(pids: (number | undefined)[]) {
    this.#pids = pids;
  }

  start(): void {
    this.#before = this.#pids.map((pid) => pid === undefined ? undefined : cpuSeconds(pid));
  }

  /** CPU seconds of each process since `start()`, in the constructor's order. */
  stop(): (number | undefined)[] {
    return this.#pids.map((pid, i) => {
      const start = this.#before[i];
      const end = pid === undefined ? undefined : cpuSeconds(pid);
      return start === undefined || end === undefined ? undefined : end - start;
    });
  }
}
