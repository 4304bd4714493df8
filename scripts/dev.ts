/**
 * `deno task dev`: the service restarted on every change of its files (`deno run --watch`).
 * `--help` is answered here: under `--watch` the service's own answer would be followed by
 * a watcher that never exits. Other arguments go to the service.
 */
const FLAGS = [
  "--v8-flags=--max-old-space-size=1024",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-ffi",
];
const MAIN = new URL("../src/main.ts", import.meta.url).pathname;

const help = Deno.args.includes("--help") || Deno.args.includes("-h");
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", ...(help ? [] : ["--watch"]), ...FLAGS, MAIN, ...Deno.args],
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
// The watcher outlives the service it restarts: after the service's drain (8 s), it goes.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    child.kill(signal);
    setTimeout(() => child.kill("SIGKILL"), 10_000);
  });
}
Deno.exit((await child.status).code);
