/**
 * The baseline the item benchmarks are measured against: the same HTTP stack the service
 * uses (Hono on node:http) answering a precomputed body, and a PUT that reads its body and
 * answers 201. The ratio service/baseline is what the service's own work costs.
 */
import { Hono } from "hono";
import { serve } from "@hono/node-server";

const port = Number(Deno.args[0] ?? "0");
const turtle = await Deno.readTextFile(Deno.args[1]);
const json = await Deno.readTextFile(Deno.args[2]);
const app = new Hono();
app.get("/turtle", (c) => c.body(turtle, 200, { "Content-Type": "text/turtle; charset=utf-8" }));
app.get("/jsonld", (c) => c.body(json, 200, { "Content-Type": "application/ld+json" }));
app.put("/put", async (c) => {
  await c.req.text();
  return c.json({ uri: "x" }, 201);
});
serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => {
  console.log(`listening ${info.port}`);
});
