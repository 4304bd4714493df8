/**
 * Bounded memory: one million triples, generated lazily, stream through every writer into
 * a sink that only counts bytes, while the process's resident memory stays within
 * {@link RSS_BUDGET_BYTES} of where it started, although the output is 75-100 MiB.
 * Slow by nature (about 5 s per format on two cores): it is the proof that downloads of
 * large items stream.
 */
import { strict as assert } from "node:assert";
// @ts-types="@types/n3"
import { DataFactory, type Quad } from "n3";
import type { RdfFormat } from "../../src/rdf/formats.ts";
import { serializeRdf } from "../../src/rdf/serialize.ts";

const TRIPLES = 1_000_000;
const TRIPLES_PER_SUBJECT = 10;
const RSS_BUDGET_BYTES = 150 * 1024 * 1024;

const { namedNode, blankNode, literal, quad } = DataFactory;
const XSD_INTEGER = namedNode("http://www.w3.org/2001/XMLSchema#integer");
const PREDICATES = Array.from(
  { length: TRIPLES_PER_SUBJECT },
  (_, i) => namedNode(`http://example.org/vocab/p${i}`),
);

/** Triples made one at a time as the serialiser asks: nothing is kept. */
async function* generatedTriples(count: number): AsyncGenerator<Quad> {
  for (let i = 0; i < count; i++) {
    const n = Math.floor(i / TRIPLES_PER_SUBJECT);
    const subject = n % 7 === 0 ? blankNode(`s${n}`) : namedNode(`http://example.org/item/${n}`);
    const kind = i % TRIPLES_PER_SUBJECT;
    const object = kind === 0
      ? namedNode(`http://example.org/item/${n + 1}`)
      : kind === 1
      ? literal(String(i), XSD_INTEGER)
      : kind === 2
      ? literal(`label ${i} "quoted" ünïcödé`, "en")
      : literal(`value ${i}\nwith a line break & <markup>`);
    yield quad(subject, PREDICATES[kind], object);
  }
}

/** Reads the stream to its end, counting bytes and sampling resident memory. */
async function drain(
  stream: ReadableStream<Uint8Array>,
): Promise<{ bytes: number; peakRss: number }> {
  let bytes = 0;
  let chunks = 0;
  let peakRss = Deno.memoryUsage().rss;
  for await (const chunk of stream) {
    bytes += chunk.byteLength;
    if (++chunks % 64 === 0) peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }
  return { bytes, peakRss: Math.max(peakRss, Deno.memoryUsage().rss) };
}

/** What one measured run reports. */
interface Measurement {
  bytes: number;
  seconds: number;
  growth: number;
}

/** Serialises the generated triples in `format` after a warm-up; runs in the child. */
async function measure(format: RdfFormat): Promise<Measurement> {
  // A warm-up run lets the heap reach its working size before the baseline is taken.
  await drain(serializeRdf(generatedTriples(50_000), format));
  const baseline = Deno.memoryUsage().rss;
  const started = performance.now();
  const { bytes, peakRss } = await drain(serializeRdf(generatedTriples(TRIPLES), format));
  return { bytes, seconds: (performance.now() - started) / 1000, growth: peakRss - baseline };
}

// Run as a program (`deno run this-file <format>`), the file measures one format and
// prints the result: a process of its own, so test modules running in parallel in the
// test runner's process cannot inflate the resident memory it reports.
if (import.meta.main) {
  console.log(JSON.stringify(await measure(Deno.args[0] as RdfFormat)));
}

async function measureInChildProcess(format: RdfFormat): Promise<Measurement> {
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-env",
      "--allow-read",
      "--config",
      config,
      import.meta.filename!,
      format,
    ],
    stderr: "inherit",
  }).output();
  assert.ok(output.success, `the measuring process for ${format} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

const FORMATS: RdfFormat[] = [
  "ntriples",
  "nquads",
  "turtle",
  "n3",
  "trig",
  "rdfxml",
  "jsonld",
  "rdfjson",
];

for (const format of FORMATS) {
  Deno.test(`serialise ${TRIPLES} triples as ${format} with bounded memory`, async () => {
    const { bytes, seconds, growth } = await measureInChildProcess(format);
    console.log(
      `${format}: ${(bytes / 1048576).toFixed(1)} MiB in ${seconds.toFixed(1)} s, ` +
        `RSS growth ${(growth / 1048576).toFixed(1)} MiB`,
    );
    assert.ok(bytes > 70 * 1024 * 1024, `only ${bytes} bytes written`);
    // Holding the document as a string costs several times the budget (measured: ~470 MiB
    // for JSON-LD); streaming costs the heap's working size, about 60 MiB in a fresh process.
    assert.ok(growth < RSS_BUDGET_BYTES, `RSS grew by ${growth} bytes`);
  });
}
