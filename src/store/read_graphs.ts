/**
 * `readItemGraphs` for stores that can only read one item at a time (a remote endpoint
 * answers one graph per request): a few reads in flight, results in the order asked.
 */
import type { Quad } from "n3";
import type { ItemGraph, TripleStore } from "./triple_store.ts";
import { ProblemError } from "../http/problem.ts";

/** Reads each item's record and graph; items that are missing, or vanish meanwhile, are left out. */
export async function readGraphsOneByOne(
  store: Pick<TripleStore, "getItem" | "readItemQuads">,
  collection: string,
  uris: string[],
  concurrency = 4,
): Promise<ItemGraph[]> {
  const results = new Array<ItemGraph | undefined>(uris.length);
  let next = 0;
  const worker = async () => {
    while (next < uris.length) {
      const index = next++;
      results[index] = await readOne(store, collection, uris[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, uris.length) }, worker));
  return results.filter((graph): graph is ItemGraph => graph !== undefined);
}

async function readOne(
  store: Pick<TripleStore, "getItem" | "readItemQuads">,
  collection: string,
  uri: string,
): Promise<ItemGraph | undefined> {
  const record = await store.getItem(collection, uri);
  if (!record) return undefined;
  const quads: Quad[] = [];
  try {
    for await (const quad of store.readItemQuads(collection, uri)) quads.push(quad);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) return undefined;
    throw error;
  }
  return { record, quads };
}
