/**
 * The codec worker: one worker thread that encodes and decodes large values for the event loop, so
 * that a client asking for a 3 MiB object in YAML (seconds of the YAML library's writer, which
 * cannot be cut into slices) holds up nobody but itself.
 *
 * The thread starts with the first task and stops after a minute without one; tasks queue for it
 * in order. One thread bounds the CPU that large codec work can take however many clients ask for it
 * at once, and leaves a core to the event loop. Memory is bounded by the requests in flight, each
 * of which queues at most one task. Callers decide what is large (`isLargeJson` for values, a
 * text's length for bodies) and do small values inline, where a thread hop costs more than the work.
 * A task's failure rejects that task alone; a thread that dies fails the tasks it held, and the
 * next task starts another.
 *
 * Hand-written on node:worker_threads. piscina, the well-kept pool, was tried first: it loads its
 * task module by path in the thread, and under tsx (development, and most tests, which run the
 * server from source) that load fails at random, because tsx's `--import` registration races with
 * the thread's first import (tsx issue 354: ERR_UNKNOWN_FILE_EXTENSION in 6 of 10 runs here). So
 * the thread starts from a short bootstrap (below) that registers tsx itself when this module runs
 * as TypeScript, then imports ./tasks.ts (tasks.js once built). A pool of one thread needs nothing
 * else piscina offers.
 */
import { Worker } from 'node:worker_threads';
import type { Schema } from '../../api/schema.ts';
import type { DecodedProtobuf, ParsedYaml } from './tasks.ts';
import type * as tasks from './tasks.ts';

const idleTimeoutMs = 60_000;

/** The thread's program (CommonJS, evaluated): runs the named export of the tasks module on each message. */
const bootstrap = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApi) (await import(workerData.tsxApi)).register();
  const tasks = await import(workerData.tasks);
  parentPort.on('message', ({ id, name, argument }) => {
    let result;
    try {
      result = tasks[name](argument);
    } catch (err) {
      parentPort.postMessage({ id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
      return;
    }
    parentPort.postMessage({ id, result }, result instanceof Uint8Array ? [result.buffer] : []);
  });
})();
`;

/** What the thread runs: tasks.ts beside this file, and tsx's registration when running as TypeScript. */
function workerData(): { tasks: string; tsxApi?: string } {
  const typescript = import.meta.url.endsWith('.ts');
  const tasks = new URL(`./tasks${typescript ? '.ts' : '.js'}`, import.meta.url).href;
  return typescript ? { tasks, tsxApi: import.meta.resolve('tsx/esm/api') } : { tasks };
}

/** A task: the name of a function exported by ./tasks.ts. */
type TaskName = keyof typeof tasks;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

class CodecWorker {
  private readonly thread: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly onGone: (worker: CodecWorker) => void) {
    // No execArgv of the process: its --import tsx would race (see above), its profiling flags are not wanted here.
    this.thread = new Worker(bootstrap, { eval: true, execArgv: [], workerData: workerData() });
    this.thread.on('message', (reply: Reply) => this.settle(reply));
    this.thread.on('error', (err) => this.fail(err));
    this.thread.on('exit', (code) => this.fail(new Error(`the codec worker exited with code ${code}`)));
  }

  run(name: string, argument: unknown): Promise<unknown> {
    clearTimeout(this.idleTimer);
    if (this.pending.size === 0) this.thread.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.thread.postMessage({ id, name, argument });
      } catch (err) {
        // An argument that cannot be cloned (a bug of the caller's): that task fails, the thread goes on.
        this.settle({ id, error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  stop(): Promise<number> {
    this.onGone(this);
    return this.thread.terminate();
  }

  private settle(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.error !== undefined) pending.reject(new Error(`codec worker: ${reply.error}`));
    else pending.resolve(reply.result);
    if (this.pending.size > 0) return;
    // Idle: the thread no longer keeps the process alive, and goes if nothing comes.
    this.thread.unref();
    this.idleTimer = setTimeout(() => void this.stop(), idleTimeoutMs).unref();
  }

  private fail(err: Error): void {
    clearTimeout(this.idleTimer);
    this.onGone(this);
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}

let current: CodecWorker | undefined;

function run<N extends TaskName>(name: N, argument: Parameters<(typeof tasks)[N]>[0]): Promise<ReturnType<(typeof tasks)[N]>> {
  current ??= new CodecWorker((gone) => {
    if (current === gone) current = undefined;
  });
  // The thread calls tasks[name](argument), whose result is this.
  return current.run(name, argument) as Promise<ReturnType<(typeof tasks)[N]>>;
}

/** `stringifyYaml(JSON.parse(json))` on the worker. */
export function yamlOfJsonOffloaded(json: string): Promise<string> {
  return run('yamlOfJson', json);
}

/** `JSON.stringify(JSON.parse(json), null, 2)` on the worker. */
export function prettyJsonOfJsonOffloaded(json: string): Promise<string> {
  return run('prettyJsonOfJson', json);
}

/** `encodeObject(JSON.parse(json), schema, envelope)` on the worker; without an envelope, `encodeMessage`. */
export function protobufOfJsonOffloaded(json: string, schema: Schema, envelope?: { apiVersion: string; kind: string }): Promise<Uint8Array> {
  return run('protobufOfJson', envelope ? { json, schema, envelope } : { json, schema });
}

/** A YAML body parsed on the worker, as JSON text (see tasks.ts `valueOfYaml`). */
export function valueOfYamlOffloaded(text: string, wantDuplicates: boolean): Promise<ParsedYaml> {
  return run('valueOfYaml', { text, wantDuplicates });
}

/** A protobuf body decoded on the worker, as JSON text (see tasks.ts `valueOfProtobuf`); the bytes are copied to it. */
export function valueOfProtobufOffloaded(bytes: Uint8Array, schema: Schema): Promise<DecodedProtobuf> {
  return run('valueOfProtobuf', { bytes, schema });
}

/** Stops the worker thread, if one runs; a later task starts another (tests, shutdown). */
export async function stopCodecWorker(): Promise<void> {
  await current?.stop();
}
