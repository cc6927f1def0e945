/**
 * The wire codecs in process: a list of ConfigMaps (10,000 of 2 KiB data each by default, shaped as
 * the API server stores and serves them) encoded and decoded as JSON and as protobuf, side by side.
 * JSON is JSON.stringify / JSON.parse with the UTF-8 conversion to and from bytes that a response or
 * a request body needs (the string-only figures are shown too); protobuf is shared/codec/protobuf.ts
 * with listSchema(configMapDefinition.schema), as apiserver/endpoints/serialize.ts calls it.
 *
 * Rounds interleave the operations so that background load hits them alike; the tables show each
 * one's median wall time and median CPU time of this process (CPU time is what to compare on a busy
 * machine: waiting for a core is not the codec's cost). The goal: a list served as protobuf costs no
 * more than the same list as JSON (protobuf ÷ JSON ≤ 1). With --cpu-prof, the protobuf operations
 * are profiled in process (the JSON ones are single built-ins with nothing to attribute) and the hot
 * lines and functions of shared/codec/protobuf.ts printed.
 *
 * Usage: node --expose-gc --import tsx bench/codec.ts [--items N] [--data-bytes B] [--rounds R]
 *          [--warmup W] [--cpu-prof] [--cpu-prof-dir DIR]
 * (--expose-gc is optional: with it, a full collection runs before each measured operation.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { configMapDefinition } from '../apiserver/registry/core/configmap.ts';
import { listSchema, type Schema } from '../shared/api/schema.ts';
import { decodeObject, encodeObject } from '../shared/codec/protobuf/object.ts';
import { parseCommandLine, positiveInt, profileDir, profileFlags } from './cli.ts';
import { configMapData, fixed, formatTable, loadAverageAtStart, repoRoot } from './lib.ts';

/** protobuf ÷ JSON time this benchmark aims at (at most). */
const goalRatio = 1;

const usage = `Usage: node --expose-gc --import tsx bench/codec.ts [flags]
  --items N           ConfigMaps in the list (default 10000)
  --data-bytes B      bytes of data per ConfigMap, in 256-byte values (default 2048)
  --rounds R          measured rounds; the table shows medians (default 9)
  --warmup W          unmeasured rounds first (default 3)
  --cpu-prof          profile the protobuf operations and print the hot spots
  --cpu-prof-dir DIR  where the profile goes (default: a new /tmp/corral-prof-* dir)
`;

interface Options {
  items: number;
  dataBytes: number;
  rounds: number;
  warmup: number;
  cpuProfileDir: string | undefined;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      items: { type: 'string', default: '10000' },
      'data-bytes': { type: 'string', default: '2048' },
      rounds: { type: 'string', default: '9' },
      warmup: { type: 'string', default: '3' },
      ...profileFlags,
    },
  });
  if (values.help) return undefined;
  return {
    items: positiveInt(values.items, 'items'),
    dataBytes: positiveInt(values['data-bytes'], 'data-bytes', 0),
    rounds: positiveInt(values.rounds, 'rounds'),
    warmup: positiveInt(values.warmup, 'warmup', 0),
    cpuProfileDir: profileDir(values),
  };
}

// ---------------------------------------------------------------------------------------------
// The list.

/**
 * A ConfigMap as the server stores it after a create: server-set metadata, one managedFields entry
 * whose FieldsV1 names every data key, and `dataBytes` of random data. Items of a list carry no
 * apiVersion and kind.
 */
function storedConfigMap(i: number, dataBytes: number): Record<string, unknown> {
  const data = configMapData(dataBytes);
  const fields: Record<string, unknown> = { '.': {} };
  for (const key of Object.keys(data)) fields[`f:${key}`] = {};
  const suffix = String(i).padStart(12, '0');
  return {
    metadata: {
      name: `bench-${i}`,
      namespace: 'default',
      uid: `5f3c2f0e-7b7d-4b6c-9d6e-${suffix}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2024-03-04T05:06:07Z',
      labels: { app: 'corral-bench' },
      managedFields: [
        {
          manager: 'bench',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2024-03-04T05:06:07Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': fields, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ],
    },
    data,
  };
}

function configMapList(items: number, dataBytes: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: String(1000 + items) },
    items: Array.from({ length: items }, (_, i) => storedConfigMap(i, dataBytes)),
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement.

interface Operation {
  name: string;
  /** Runs once; returns the bytes produced (encode) or consumed (decode), for MB/s. */
  run(): number;
}

const gc = (globalThis as { gc?: () => void }).gc;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Measured {
  /** Wall time of each measured run, ms. */
  wallMs: number[];
  /** CPU time of this process (every thread: the collector's helpers too) during each run, ms. */
  cpuMs: number[];
  bytes: number;
}

function measureRounds(operations: readonly Operation[], rounds: number, warmup: number): Map<string, Measured> {
  const results = new Map<string, Measured>(operations.map((op) => [op.name, { wallMs: [], cpuMs: [], bytes: 0 }]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (const op of operations) {
      gc?.();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const bytes = op.run();
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (r < warmup) continue;
      const m = results.get(op.name)!;
      m.wallMs.push(wall);
      m.cpuMs.push((cpu.user + cpu.system) / 1000);
      m.bytes = bytes;
    }
    process.stderr.write(r < warmup ? `  warm-up round ${r + 1}/${warmup}\n` : `  round ${r - warmup + 1}/${rounds}\n`);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Profiling.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A V8 CPU profile, as the inspector's Profiler.stop returns it. */
interface CpuProfileData {
  nodes: { id: number; callFrame: CallFrame; positionTicks?: { line: number; ticks: number }[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Profiles `run` with the inspector's CPU profiler: what `node --cpu-prof` records, limited to these calls. */
async function cpuProfile(run: () => void): Promise<CpuProfileData> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  run();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return profile as unknown as CpuProfileData;
}

type CodecModule = typeof import('../shared/codec/protobuf/object.ts');

const codecSource = 'shared/codec/protobuf.ts';

/**
 * The codec transpiled by TypeScript into `dir` (one statement per line, a source map back to the
 * TypeScript) and loaded from there: tsx's output is one long line, which leaves V8's per-line
 * ticks nothing to tell apart. The copy runs the same code as the module measured above.
 */
async function lineMappedCodec(dir: string): Promise<{ codec: CodecModule; url: string; lineOf: (generatedLine: number) => number }> {
  const sourceFile = join(repoRoot, codecSource);
  const out = ts.transpileModule(readFileSync(sourceFile, 'utf8'), {
    fileName: sourceFile,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: true },
  });
  const file = join(dir, 'protobuf.line-mapped.mjs');
  writeFileSync(file, out.outputText);
  const map = new SourceMap(JSON.parse(out.sourceMapText ?? '{}') as SourceMapPayload);
  const generated = out.outputText.split('\n');
  const lineOf = (generatedLine: number): number => {
    const text = generated[generatedLine - 1] ?? '';
    const entry = map.findEntry(generatedLine - 1, text.length - text.trimStart().length);
    return 'originalLine' in entry ? entry.originalLine + 1 : 0;
  };
  const url = pathToFileURL(file).href;
  return { codec: (await import(url)) as CodecModule, url, lineOf };
}

interface HotSpot {
  label: string;
  ms: number;
  percent: number;
}

interface HotSpots {
  totalMs: number;
  /** Self time per line of the codec (inlined callees count at their call's line). */
  lines: HotSpot[];
  /** Self time per function: the codec's, the built-ins it calls, the garbage collector. */
  functions: HotSpot[];
}

function hotSpots(profile: CpuProfileData, url: string, lineOf: (generatedLine: number) => number, top: number): HotSpots {
  const ticksById = new Map<number, number>();
  for (const id of profile.samples) ticksById.set(id, (ticksById.get(id) ?? 0) + 1);
  const totalMs = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
  const msPerTick = totalMs / Math.max(1, profile.samples.length);
  const byLine = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (into: Map<string, number>, key: string, ticks: number): void => void into.set(key, (into.get(key) ?? 0) + ticks);
  for (const node of profile.nodes) {
    const ticks = ticksById.get(node.id) ?? 0;
    const frame = node.callFrame;
    const own = frame.url === url;
    const name = frame.functionName || '(anonymous)';
    if (ticks) add(byFunction, own ? `${name}  ${codecSource}:${lineOf(frame.lineNumber + 1)}` : frame.url ? `${name}  ${frame.url}` : name, ticks);
    if (own) for (const { line, ticks: lineTicks } of node.positionTicks ?? []) add(byLine, `${codecSource}:${lineOf(line)}`, lineTicks);
  }
  const rank = (m: Map<string, number>): HotSpot[] =>
    [...m]
      .filter(([label]) => !label.startsWith('(idle)') && !label.startsWith('(program)') && !label.startsWith('(root)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([label, ticks]) => ({ label, ms: ticks * msPerTick, percent: (100 * ticks) / Math.max(1, profile.samples.length) }));
  return { totalMs, lines: rank(byLine), functions: rank(byFunction) };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = parseCommandLine(usage, parseOptions);
  if (!opts) return;
  const startLoad = loadavg();
  process.stderr.write(`building ${opts.items} ConfigMaps of ${opts.dataBytes} B data\n`);
  const list = configMapList(opts.items, opts.dataBytes);
  const schema: Schema = listSchema(configMapDefinition.schema);
  const typeMeta = { apiVersion: 'v1', kind: 'ConfigMapList' };

  // The encoded forms the decoders read, and a check that both codecs carry the same list.
  const jsonBytes = Buffer.from(JSON.stringify(list), 'utf8');
  const jsonText = jsonBytes.toString('utf8');
  const protobufBytes = encodeObject(list, schema, typeMeta);
  if (JSON.stringify(decodeObject(protobufBytes, schema)) !== jsonText)
    throw new Error('the protobuf round trip changed the list: the benchmark would compare different work');

  const operations: Operation[] = [
    { name: 'JSON encode', run: () => Buffer.from(JSON.stringify(list), 'utf8').length },
    { name: 'protobuf encode', run: () => encodeObject(list, schema, typeMeta).length },
    { name: 'JSON decode', run: () => (JSON.parse(jsonBytes.toString('utf8')) as unknown, jsonBytes.length) },
    { name: 'protobuf decode', run: () => (decodeObject(protobufBytes, schema), protobufBytes.length) },
    { name: 'JSON.stringify only', run: () => JSON.stringify(list).length },
    { name: 'JSON.parse only', run: () => (JSON.parse(jsonText) as unknown, jsonBytes.length) },
  ];
  process.stderr.write(
    `measuring ${opts.rounds} rounds after ${opts.warmup} warm-up rounds${gc ? ', a full GC before each operation' : ' (with --expose-gc, a full GC would run before each operation)'}\n`,
  );
  const results = measureRounds(operations, opts.rounds, opts.warmup);

  const at = (name: string): Measured => results.get(name)!;
  const mbps = (m: Measured): number => m.bytes / 1e6 / (median(m.wallMs) / 1000);
  const verdict = (ratio: number): string => `≤ ${goalRatio} ${ratio <= goalRatio ? 'met' : 'MISSED'}`;
  const row = (what: string, json: string, protobuf: string): string[] => {
    const j = at(json);
    const p = at(protobuf);
    const wallRatio = median(p.wallMs) / median(j.wallMs);
    const cpuRatio = median(p.cpuMs) / median(j.cpuMs);
    return [
      what,
      fixed(median(j.wallMs), 1),
      fixed(median(j.cpuMs), 1),
      fixed(mbps(j), 0),
      '|',
      fixed(median(p.wallMs), 1),
      fixed(median(p.cpuMs), 1),
      fixed(mbps(p), 0),
      '|',
      fixed(wallRatio, 2),
      fixed(cpuRatio, 2),
      verdict(cpuRatio),
    ];
  };

  const out = process.stdout;
  out.write(
    `\nConfigMapList of ${opts.items} items, ${opts.dataBytes} B data each: JSON ${fixed(jsonBytes.length / 1e6, 2)} MB, protobuf ${fixed(protobufBytes.length / 1e6, 2)} MB ` +
      `(${fixed(protobufBytes.length / jsonBytes.length, 2)} of JSON); medians of ${opts.rounds} rounds; node ${process.version}, ${cpus().length} CPUs, ` +
      `${loadAverageAtStart(startLoad)}\n\n`,
  );
  out.write(
    formatTable(
      ['operation', 'JSON wall ms', 'CPU ms', 'MB/s', '|', 'protobuf wall ms', 'CPU ms', 'MB/s', '|', 'protobuf/JSON wall', 'CPU', 'goal (CPU)'],
      [row('encode (object → bytes)', 'JSON encode', 'protobuf encode'), row('decode (bytes → object)', 'JSON decode', 'protobuf decode')],
    ) + '\n',
  );
  out.write(`  MB/s: bytes of each format's own encoding (output of encode, input of decode) per second of wall time.\n\n`);
  const spread = (values: number[]): string => `${fixed(Math.min(...values), 1)}–${fixed(Math.max(...values), 1)}`;
  out.write(
    formatTable(
      ['operation', 'wall ms', 'min–max', '|', 'CPU ms', 'min–max', '|', 'MB/s'],
      operations.map((op) => {
        const m = at(op.name);
        return [op.name, fixed(median(m.wallMs), 1), spread(m.wallMs), '|', fixed(median(m.cpuMs), 1), spread(m.cpuMs), '|', fixed(mbps(m), 0)];
      }),
    ) + '\n',
  );
  out.write(`  JSON encode = JSON.stringify + UTF-8 encoding; JSON decode = UTF-8 decoding + JSON.parse.\n`);

  if (opts.cpuProfileDir) {
    const dir = opts.cpuProfileDir;
    mkdirSync(dir, { recursive: true });
    const { codec, url, lineOf } = await lineMappedCodec(dir);
    const source = readFileSync(join(repoRoot, codecSource), 'utf8').split('\n');
    const sourceOf = (label: string): string => (source[Number(label.slice(label.lastIndexOf(':') + 1)) - 1] ?? '').trim().slice(0, 100);
    const bytes = codec.encodeObject(list, schema, typeMeta);
    const rounds = Math.max(3, Math.ceil(opts.rounds / 2));
    for (const [label, run] of [
      ['encode', () => codec.encodeObject(list, schema, typeMeta)],
      ['decode', () => codec.decodeObject(bytes, schema)],
    ] as const) {
      for (let i = 0; i < opts.warmup; i++) run();
      const profile = await cpuProfile(() => {
        for (let i = 0; i < rounds; i++) run();
      });
      const profileFile = join(dir, `protobuf-${label}.cpuprofile`);
      writeFileSync(profileFile, JSON.stringify(profile));
      const spots = hotSpots(profile, url, lineOf, 20);
      out.write(`\nprotobuf ${label}: CPU profile ${profileFile} (${rounds} operations, ${fixed(spots.totalMs, 0)} ms)\n\n`);
      out.write(
        formatTable(
          ['self time by line', 'ms', '%', 'source'],
          spots.lines.map((s) => [s.label, fixed(s.ms, 0), fixed(s.percent, 1), sourceOf(s.label)]),
        ) + '\n\n',
      );
      out.write(
        formatTable(
          ['self time by function', 'ms', '%'],
          spots.functions.slice(0, 12).map((s) => [s.label, fixed(s.ms, 0), fixed(s.percent, 1)]),
        ) + '\n',
      );
    }
  }
}

await main();
