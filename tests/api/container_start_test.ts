/**
 * The container starts as documented: the image's `ENV` (host 0.0.0.0), the shipped
 * customer.yml in the working directory and one token from the environment, nothing
 * mounted. There is no Docker engine here, so `deno run src/main.ts` stands in for the
 * compiled executable of the `ENTRYPOINT`; the port and data directory are a free port and
 * a temporary directory instead of 8080 and /data.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { startServiceProcess } from "../support/process.ts";
import { DEMO_COLLECTION, uniqueItemUri } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const DOCKERFILE = Deno.readTextFileSync(new URL("../../Dockerfile", import.meta.url));
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const ADMIN_TOKEN = "container-admin-token-0123456789";

/** The `ENV` variables of the Dockerfile's last stage (`ENV A=1 \` continuation lines). */
function imageEnvironment(dockerfile: string): Record<string, string> {
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const block = lastStage.match(/^ENV ((?:.*\\\n)*.*)$/m);
  assert.ok(block, "the Dockerfile's last stage has no ENV");
  const env: Record<string, string> = {};
  for (const [, name, value] of block[1].matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[name] = value;
  return env;
}

Deno.test({
  name: "the image's ENTRYPOINT and ENV with one token from the environment serve",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const image = imageEnvironment(DOCKERFILE);
    assert.equal(image.SERVICE_HTTP_HOST, "0.0.0.0");
    assert.match(DOCKERFILE, /^COPY customer\.yml \/app\/customer\.yml$/m);
    assert.match(DOCKERFILE, /^WORKDIR \/app$/m);
    assert.match(DOCKERFILE, /^ENTRYPOINT \["\/app\/rdf-content-service"\]$/m);
    // /app: the working directory holding the shipped customer.yml, as in the image.
    const app = await Deno.makeTempDir({ prefix: "rcs-app-" });
    const data = await Deno.makeTempDir({ prefix: "rcs-data-" });
    Deno.writeTextFileSync(join(app, "customer.yml"), SHIPPED);
    // The port is the free one startServiceProcess picks, not the image's 8080.
    const { SERVICE_HTTP_PORT: _imagePort, ...imageEnv } = image;
    const service = await startServiceProcess(
      { ...imageEnv, SERVICE_DATA_DIR: data, SERVICE_ADMIN_TOKEN: ADMIN_TOKEN },
      { cwd: app, clearEnv: true },
    );
    try {
      const health = await fetch(`${service.url}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const uri = uniqueItemUri("container");
      const put = (headers: Record<string, string>) =>
        fetch(`${service.url}/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`, {
          method: "PUT",
          headers: { "Content-Type": "text/turtle", ...headers },
          body: `<${uri}> <http://purl.org/dc/terms/title> "from the container" .`,
        });
      await expectProblem(await put({}), 401, "unauthorized");
      const created = await put({ Authorization: `Bearer ${ADMIN_TOKEN}` });
      assert.equal(created.status, 201, await created.text());
    } finally {
      await service.stop();
      await Deno.remove(app, { recursive: true });
      await Deno.remove(data, { recursive: true });
    }
  },
});
