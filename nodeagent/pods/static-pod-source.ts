/**
 * The node agent's static pods: staticPodPath read every fileCheckFrequency and staticPodURL every
 * httpCheckFrequency, merged into one set that listeners receive whole whenever it changes (the
 * kubelet's PodConfig for its file and http sources, pkg/kubelet/config/config.go).
 *
 * What the merge adds, as upstream's podStorage does:
 * - `kubernetes.io/config.source` (`file` or `http`) on every pod;
 * - `kubernetes.io/config.seen`, the time the agent first saw the pod, kept while the pod (its
 *   UID, a hash of the manifest) stays the same;
 * - pods with the same full name (`name_namespace`) in one source: the first is kept, the others
 *   are left out with upstream's log line and a Warning event (FailedValidation) on the pod.
 *   Upstream does this per source only; corral applies it across the two sources as well (file
 *   first), because two pods with one name cannot share one mirror pod.
 *
 * `ready` is upstream's "all sources seen": every configured source has delivered a set once (a
 * missing path and an empty URL body count; an unreachable URL does not). Mirror pods of static
 * pods that are gone are deleted only once the set is ready, so that a slow first read does not
 * delete them.
 *
 * Manifests that could not be used are listed in `invalid` with upstream's error text, logged as
 * upstream logs them, and reported once per manifest and error as a Warning event (reason
 * FailedValidation) on the Node when a recorder is given: upstream only logs, but an agent without
 * a container runtime is mostly watched through the API, where a log line is out of sight.
 * Repeated reads log a problem again only when it changed (upstream logs it every period).
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../../shared/api/types.ts';
import type { Clock } from '../../shared/client/clock.ts';
import type { EventRecorder } from '../../shared/client/events.ts';
import { goQuote } from '../../shared/go/format.ts';
import { readStaticPodPath, type InvalidManifest, type SourceProblem } from './file-source.ts';
import { configFirstSeenAnnotation, configSourceAnnotation, describePod, podFullName, type Pod } from './pod.ts';
import type { StaticPodRules, StaticPodSourceKind } from './static-pod.ts';
import { readStaticPodUrl } from './url-source.ts';

export interface InvalidStaticPod {
  source: StaticPodSourceKind;
  /** The file or URL the manifest came from. */
  origin: string;
  error: string;
}

/** What listeners receive: the whole current set. */
export interface StaticPodSet {
  /** Valid static pods, file source first, deduplicated, with the source and seen annotations. */
  pods: Pod[];
  invalid: InvalidStaticPod[];
  /** Every configured source has delivered a set at least once. */
  ready: boolean;
}

export interface StaticPodSourceOptions extends StaticPodRules {
  staticPodPath?: string;
  fileCheckFrequencyMs: number;
  staticPodURL?: string;
  staticPodURLHeader?: Readonly<Record<string, readonly string[]>>;
  httpCheckFrequencyMs: number;
  clock: Clock;
  logger: Logger;
  /** Records the FailedValidation events; none without it. */
  events?: EventRecorder;
  /** The agent's Node as last seen, for events about manifests that cannot be used. */
  node?: () => KubeObject | undefined;
}

/** Upstream's event reason for a pod that failed validation (pkg/kubelet/events). */
export const failedValidationReason = 'FailedValidation';

interface SourceState {
  pods: Pod[];
  invalid: InvalidManifest[];
  seen: boolean;
  /** Problems of the last read, as text, to log only changes. */
  problems: string;
  running: Promise<void> | undefined;
}

export class StaticPodSource {
  private readonly file: SourceState = emptyState();
  private readonly url: SourceState = emptyState();
  private urlBody: string | undefined;
  private readonly firstSeen = new Map<string, string>();
  private readonly listeners: ((set: StaticPodSet) => void)[] = [];
  /** Manifest problems already reported, so that each is reported once while it lasts. */
  private reported = new Set<string>();
  private set: StaticPodSet;
  private lastSignature = '';
  private readonly cancels: (() => void)[] = [];
  private stopped = true;

  constructor(private readonly options: StaticPodSourceOptions) {
    this.set = { pods: [], invalid: [], ready: !options.staticPodPath && !options.staticPodURL };
  }

  /** Calls `listener` with every new set (and at once with the current one when a source has been read). */
  onChange(listener: (set: StaticPodSet) => void): void {
    this.listeners.push(listener);
    if (this.lastSignature !== '') listener(this.set);
  }

  current(): StaticPodSet {
    return this.set;
  }

  /** Reads every configured source now, then again every period on the clock, until stop. */
  start(): void {
    this.stopped = false;
    const { staticPodPath, staticPodURL, fileCheckFrequencyMs, httpCheckFrequencyMs, logger } = this.options;
    if (staticPodPath) {
      logger.info({ path: staticPodPath }, 'Adding static pod path');
      this.loop(() => this.readFile(), fileCheckFrequencyMs);
    }
    if (staticPodURL) {
      logger.info({ URL: staticPodURL }, 'Adding pod URL with HTTP header');
      this.loop(() => this.readUrl(), httpCheckFrequencyMs);
    }
  }

  /** Resolves once the reads under way are done (for tests and orderly shutdown). */
  async idle(): Promise<void> {
    await Promise.all([this.file.running, this.url.running]);
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels.splice(0)) cancel();
  }

  /** One read of staticPodPath (no-op without one); reads of one source never overlap. */
  readFile(): Promise<void> {
    const path = this.options.staticPodPath;
    if (!path) return Promise.resolve();
    return this.exclusive(this.file, async () => {
      const read = await readStaticPodPath(path, this.options);
      this.logProblems(this.file, read.problems, 'error');
      if (read.pods) {
        this.file.pods = read.pods;
        this.file.seen = true;
      }
      this.file.invalid = read.invalid;
      this.publish();
    });
  }

  /** One read of staticPodURL (no-op without one). */
  readUrl(): Promise<void> {
    const url = this.options.staticPodURL;
    if (!url) return Promise.resolve();
    return this.exclusive(this.url, async () => {
      const hadProblems = this.url.problems !== '';
      const read = await readStaticPodUrl(url, this.options.staticPodURLHeader ?? {}, this.options, this.urlBody);
      this.logProblems(this.url, read.problems, 'info');
      if (hadProblems && read.problems.length === 0) this.options.logger.info('Successfully read pods from URL');
      if (read.body !== undefined) this.urlBody = read.body;
      if (read.pods) {
        this.url.pods = read.pods;
        this.url.seen = true;
      }
      if (read.invalid) this.url.invalid = read.invalid;
      this.publish();
    });
  }

  private loop(read: () => Promise<void>, periodMs: number): void {
    const tick = (): void => {
      void read().finally(() => {
        if (!this.stopped) this.cancels.push(this.options.clock.after(periodMs, tick));
      });
    };
    tick();
  }

  private exclusive(state: SourceState, work: () => Promise<void>): Promise<void> {
    const run = (state.running ?? Promise.resolve()).then(work).catch((err: unknown) => {
      this.options.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'static pod source failed');
    });
    state.running = run;
    return run;
  }

  private logProblems(state: SourceState, problems: SourceProblem[], level: 'error' | 'info'): void {
    const text = JSON.stringify(problems);
    if (text === state.problems || (problems.length === 0 && state.problems === '')) {
      state.problems = problems.length === 0 ? '' : text;
      return;
    }
    state.problems = problems.length === 0 ? '' : text;
    for (const { message, ...fields } of problems) this.options.logger[level](fields.error !== undefined ? { err: fields.error, ...fields } : fields, message);
  }

  /** Merges the two sources into the set and tells listeners when it changed. */
  private publish(): void {
    const { logger, events, clock } = this.options;
    const names = new Set<string>();
    const pods: Pod[] = [];
    const invalid: InvalidStaticPod[] = [
      ...this.file.invalid.map((i) => ({ source: 'file' as const, ...i })),
      ...this.url.invalid.map((i) => ({ source: 'http' as const, ...i })),
    ];
    /** What to report once, by a key naming the manifest and its error. */
    const reports = new Map<string, () => void>();
    for (const bad of [...invalid]) {
      reports.set(`${bad.origin}\n${bad.error}`, () => {
        const node = this.options.node?.();
        // The event is about the Node: it names the manifest unless the error already does.
        const message = bad.error.startsWith(bad.origin) ? bad.error : `${bad.origin}: ${bad.error}`;
        if (node) events?.event({ apiVersion: 'v1', kind: 'Node', ...node }, 'Warning', failedValidationReason, message);
      });
    }
    const uids = new Set<string>();
    for (const [source, state] of [['file', this.file] as const, ['http', this.url] as const]) {
      for (const original of state.pods) {
        const name = podFullName(original);
        if (names.has(name)) {
          const error = `Error validating pod ${describePod(original)} from ${source} due to duplicate pod name ${goQuote(original.metadata.name ?? '')}, ignoring`;
          invalid.push({ source, origin: name, error });
          reports.set(`${name}\n${error}`, () => {
            logger.info({ pod: name, source }, 'Pod failed validation due to duplicate pod name, ignoring');
            events?.event({ apiVersion: 'v1', kind: 'Pod', ...original }, 'Warning', failedValidationReason, error);
          });
          continue;
        }
        names.add(name);
        const uid = original.metadata.uid ?? '';
        uids.add(uid);
        let seen = this.firstSeen.get(uid);
        if (seen === undefined) {
          seen = rfc3339Nano(clock.now());
          this.firstSeen.set(uid, seen);
        }
        const annotations = { ...(original.metadata.annotations ?? {}), [configSourceAnnotation]: source, [configFirstSeenAnnotation]: seen };
        pods.push({ ...original, metadata: { ...original.metadata, annotations } });
      }
    }
    for (const uid of this.firstSeen.keys()) if (!uids.has(uid)) this.firstSeen.delete(uid);
    for (const [key, report] of reports) if (!this.reported.has(key)) report();
    this.reported = new Set(reports.keys());
    const ready = (!this.options.staticPodPath || this.file.seen) && (!this.options.staticPodURL || this.url.seen);
    this.set = { pods, invalid, ready };
    const signature = JSON.stringify(this.set);
    if (signature === this.lastSignature) return;
    this.lastSignature = signature;
    for (const listener of this.listeners) listener(this.set);
  }
}

function emptyState(): SourceState {
  return { pods: [], invalid: [], seen: false, problems: '', running: undefined };
}

/** Go's time.RFC3339Nano in UTC: fraction digits without trailing zeros, none for a whole second. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d+)Z$/, (_, digits: string) => {
    const trimmed = digits.replace(/0+$/, '');
    return trimmed ? `.${trimmed}Z` : 'Z';
  });
}
