/**
 * One read of staticPodPath, as the kubelet's file source (pkg/kubelet/config/file.go,
 * listConfig) reads it: the path is a manifest file or a directory of manifest files.
 *
 * - A missing path is no error for the agent: the source reports an empty set (so that it counts
 *   as seen) and upstream's "path does not exist, ignoring".
 * - A directory: its entries not starting with "." (upstream's glob `[^.]*`), in byte order; each
 *   is followed through symlinks; regular files are read, directories are not recursed into, other
 *   kinds are reported. A bad file is reported and left out; the others still run.
 * - A single file: when it cannot be used, the set read before stays (upstream returns before
 *   replacing its store), and the error is reported.
 *
 * This module only reads; the poller (static-pod-source.ts) reads again every fileCheckFrequency.
 * Upstream also watches the path with inotify to notice changes sooner; corral polls only, so a
 * change is seen within one period.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareGoStrings } from '../../shared/go/format.ts';
import type { Pod } from './pod.ts';
import { decodeManifestFile, maxManifestBytes, readLimitReachedMessage, type StaticPodRules } from './static-pod.ts';

/** Something a read found wrong, as upstream logs it: a message, the error text, the path. */
export interface SourceProblem {
  message: string;
  error?: string;
  path: string;
  mode?: string;
}

/** A manifest that was not turned into a pod, and why (upstream's error text). */
export interface InvalidManifest {
  origin: string;
  error: string;
}

export interface SourceRead {
  /** The pods now configured; undefined keeps the set read before. */
  pods: Pod[] | undefined;
  invalid: InvalidManifest[];
  problems: SourceProblem[];
}

/** Upstream's messages for the whole path (logged as "Unable to read config path"). */
export const pathMissingMessage = 'path does not exist, ignoring';
export const pathNotFileOrDirMessage = 'path is not a directory or file';

/** Reads the manifests at `path` once. */
export async function readStaticPodPath(path: string, rules: StaticPodRules): Promise<SourceRead> {
  const root = path.length > 1 ? path.replace(/\/+$/, '') : path;
  let info;
  try {
    info = await stat(root);
  } catch (err) {
    if (errorCode(err) === 'ENOENT')
      return { pods: [], invalid: [], problems: [{ message: 'Unable to read config path', error: pathMissingMessage, path: root }] };
    return { pods: undefined, invalid: [], problems: [{ message: 'Unable to read config path', error: errorText(err), path: root }] };
  }
  if (info.isDirectory()) return readDirectory(root, rules);
  if (info.isFile()) {
    const result = await readManifest(root, rules);
    if ('pod' in result) return { pods: [result.pod], invalid: [], problems: [] };
    return {
      pods: undefined,
      invalid: [{ origin: root, error: result.error }],
      problems: [{ message: 'Unable to read config path', error: result.error, path: root }],
    };
  }
  return { pods: undefined, invalid: [], problems: [{ message: 'Unable to read config path', error: pathNotFileOrDirMessage, path: root }] };
}

async function readDirectory(dir: string, rules: StaticPodRules): Promise<SourceRead> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    return { pods: undefined, invalid: [], problems: [{ message: 'Unable to read config path', error: errorText(err), path: dir }] };
  }
  const paths = names
    .filter((name) => !name.startsWith('.'))
    .map((name) => join(dir, name))
    .sort(compareGoStrings);
  const read: SourceRead = { pods: [], invalid: [], problems: [] };
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      read.problems.push({ message: 'Could not get metadata', error: errorText(err), path });
      continue;
    }
    if (info.isDirectory()) {
      read.problems.push({ message: 'Provided manifest path is a directory, not recursing into manifest path', path });
    } else if (info.isFile()) {
      const result = await readManifest(path, rules);
      if ('pod' in result) read.pods?.push(result.pod);
      else if (result.error !== '') {
        read.invalid.push({ origin: path, error: result.error });
        read.problems.push({ message: 'Could not process manifest file', error: result.error, path });
      }
    } else {
      read.problems.push({ message: 'Manifest path is not a directory or file', path, mode: (info.mode & 0o170000).toString(8) });
    }
  }
  return read;
}

/** One manifest file: its pod, or the error; an empty error when the file vanished meanwhile (upstream stays silent). */
async function readManifest(path: string, rules: StaticPodRules): Promise<{ pod: Pod } | { error: string }> {
  let text: string;
  try {
    text = await readAtMost(path, maxManifestBytes);
  } catch (err) {
    return { error: errorCode(err) === 'ENOENT' ? '' : errorText(err) };
  }
  return decodeManifestFile(text, path, rules);
}

/** The file's text, refused beyond `limit` bytes as upstream's utilio.ReadAtMost refuses it. */
async function readAtMost(path: string, limit: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) throw new Error(readLimitReachedMessage);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** Node's fs errors as Go's os errors read: `stat /etc/x: permission denied`. */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const syscall = 'syscall' in err && typeof err.syscall === 'string' ? err.syscall : undefined;
  const path = 'path' in err && typeof err.path === 'string' ? err.path : undefined;
  const reason: Record<string, string> = {
    EACCES: 'permission denied',
    ENOENT: 'no such file or directory',
    ENOTDIR: 'not a directory',
    EISDIR: 'is a directory',
  };
  const code = errorCode(err);
  if (syscall && path && code && reason[code]) return `${syscall} ${path}: ${reason[code]}`;
  return err.message;
}
