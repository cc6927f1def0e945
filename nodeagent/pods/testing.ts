/**
 * Fakes for this folder's tests: a logger that keeps its lines, and stand-ins for the API server's
 * pod defaulting and validation (the real ones are injected by the agent's main), small enough
 * that a test sees why a manifest is refused.
 */
import { pino, type Logger } from 'pino';
import { FieldPath, invalid, required, type FieldError } from '../../shared/api/field.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import type { Pod } from './pod.ts';
import type { StaticPodRules } from './static-pod.ts';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A debug-level logger whose lines (parsed) land in `lines`. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

/** Sets restartPolicy and dnsPolicy when absent, as the API's defaulting would. */
export function fakeApplyDefaults(obj: KubeObject): void {
  const pod = obj as Pod;
  pod.spec = { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', ...(pod.spec ?? {}) };
}

/** Requires at least one container, each with a lower-case name and an image. */
export function fakeValidate(obj: KubeObject): FieldError[] {
  const pod = obj as Pod;
  const errors: FieldError[] = [];
  const containers = pod.spec?.containers ?? [];
  const path = FieldPath.root('spec').child('containers');
  if (containers.length === 0) errors.push(required(path));
  containers.forEach((c, i) => {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(c.name))
      errors.push(invalid(path.index(i).child('name'), c.name, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters'));
    if (!c.image) errors.push(required(path.index(i).child('image')));
  });
  return errors;
}

export function testRules(nodeName = 'Node-1'): StaticPodRules {
  return { nodeName, applyDefaults: fakeApplyDefaults, validate: fakeValidate };
}
