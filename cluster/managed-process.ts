/**
 * One long-running component of a process topology: a command line that can be started, stopped,
 * killed and started again on the same arguments (ports included), appending its output to one log
 * file, and a readiness probe that `start` waits on.
 *
 * Stopping is SIGTERM, then SIGKILL after `graceMs`: a component's graceful shutdown (an API server
 * draining its requests) gets its time, a hung one does not hold the whole topology. Each child runs
 * in a process group of its own, so that Ctrl-C in a terminal reaches the topology's owner alone,
 * which stops the components in order (a second SIGTERM would make an API server skip its drain);
 * on Linux it runs under `setpriv --pdeathsig` as etcd does (shared/etcd/ownership.ts), so that it
 * dies with its owner even when the owner is SIGKILLed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tiedToParent } from '../shared/etcd/ownership.ts';

/** How long a component may take to stop after SIGTERM before it is killed. */
export const DEFAULT_GRACE_MS = 15_000;
/** How long a component may take to become ready. */
export const DEFAULT_READY_TIMEOUT_MS = 90_000;
const READY_POLL_MS = 200;

export interface ManagedProcessOptions {
  /** A name for messages: `apiserver-0`. */
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  logFile: string;
  /** Resolves true once the component serves; a throw counts as not yet. Absent: ready once spawned. */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
  graceMs?: number;
  env?: NodeJS.ProcessEnv;
}

export class ManagedProcess {
  private current: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(readonly options: ManagedProcessOptions) {}

  get name(): string {
    return this.options.name;
  }

  get logFile(): string {
    return this.options.logFile;
  }

  /** The running child, or undefined when stopped or dead. */
  get child(): ChildProcess | undefined {
    return this.running ? this.current : undefined;
  }

  get running(): boolean {
    return this.current !== undefined && this.current.exitCode === null && this.current.signalCode === null;
  }

  /** Spawns the command (unless it runs) and waits until its probe passes; throws with the log's tail if it exits or times out first. */
  async start(): Promise<void> {
    if (this.running) return;
    const { command, args, cwd, logFile, env } = this.options;
    const fd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      const launch = tiedToParent(command, [...args]);
      child = spawn(launch.command, launch.args, { cwd, env: env ?? process.env, stdio: ['ignore', fd, fd], detached: true });
    } finally {
      closeSync(fd);
    }
    this.current = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
    const ready = this.options.ready;
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
    for (;;) {
      const failed = await Promise.race([spawnError, sleep(0).then(() => undefined)]);
      if (failed) throw new Error(`${this.name}: cannot run ${command}: ${failed.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) before it was ready\n--- ${logFile} ---\n${this.logTail()}`);
      }
      if (!ready || (await ready().catch(() => false))) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(
          `${this.name} was not ready within ${this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS} ms\n--- ${logFile} ---\n${this.logTail()}`,
        );
      }
      await sleep(READY_POLL_MS);
    }
  }

  /** SIGTERM, SIGKILL after the grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM', this.options.graceMs ?? DEFAULT_GRACE_MS);
  }

  /** SIGKILL, as a crash would; resolves once the process is gone. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL', 0);
  }

  /** A graceful stop, then a start on the same arguments. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** The last lines of the log. */
  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  private async signal(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const child = this.current;
    if (!child || !this.running) return;
    child.kill(signal);
    const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    if (timer) clearTimeout(timer);
  }
}
