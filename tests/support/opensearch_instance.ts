/**
 * An OpenSearch node of a test's own (scripts/opensearch.sh on a free port, in a node
 * directory of its own), for tests that kill, freeze or restart the engine: the shared node
 * of SERVICE_OPENSEARCH_URL is never touched.
 */
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.ts";

const SCRIPT = fileURLToPath(new URL("../../scripts/opensearch.sh", import.meta.url));

/** A private OpenSearch node; {@link dispose} stops it and removes its directory. */
export class OpenSearchInstance {
  readonly port: number;
  readonly nodeDir: string;

  private constructor(port: number, nodeDir: string) {
    this.port = port;
    this.nodeDir = nodeDir;
  }

  /** Starts a node on a free port (its transport port is that plus 100) and waits for it. */
  static async start(): Promise<OpenSearchInstance> {
    // Under /tmp, which the node's own user can reach when the script runs it as root.
    const nodeDir = await Deno.makeTempDir({ prefix: "rcs-faults-opensearch-" });
    let port = freePort();
    while (port > 65_000) port = freePort();
    const instance = new OpenSearchInstance(port, nodeDir);
    await instance.start();
    return instance;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** (Re)starts the node on the same directory (its indices survive) and waits for yellow. */
  async start(): Promise<void> {
    await this.#script("start");
  }

  /** The node's process id. */
  async pid(): Promise<number> {
    return Number((await Deno.readTextFile(`${this.nodeDir}/opensearch.pid`)).trim());
  }

  /** SIGKILLs the node and waits until it is gone. */
  async kill(): Promise<void> {
    const pid = await this.pid();
    Deno.kill(pid, "SIGKILL");
    const deadline = Date.now() + 15_000;
    while (await isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`OpenSearch pid ${pid} survived SIGKILL`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Freezes the node (SIGSTOP): connections stay open, nothing answers. */
  async freeze(): Promise<void> {
    Deno.kill(await this.pid(), "SIGSTOP");
  }

  /** Lets a frozen node run again (SIGCONT). */
  async thaw(): Promise<void> {
    Deno.kill(await this.pid(), "SIGCONT");
  }

  /** Stops the node (thawed first, if frozen) and removes its directory. */
  async dispose(): Promise<void> {
    try {
      await this.thaw().catch(() => {});
      await this.#script("stop");
    } finally {
      await Deno.remove(this.nodeDir, { recursive: true }).catch(() => {});
    }
  }

  async #script(command: "start" | "stop"): Promise<void> {
    const output = await new Deno.Command("bash", {
      args: [SCRIPT, command],
      env: { OPENSEARCH_PORT: String(this.port), OPENSEARCH_NODE_DIR: this.nodeDir },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const decoder = new TextDecoder();
      throw new Error(
        `scripts/opensearch.sh ${command} (port ${this.port}) failed:\n` +
          decoder.decode(output.stdout) + decoder.decode(output.stderr),
      );
    }
  }
}

async function isAlive(pid: number): Promise<boolean> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}
