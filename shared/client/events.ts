/**
 * Events a controller records about the objects it works on (`kubectl describe` and `kubectl get
 * events` show them): why a certificate was not signed, why a namespace cannot be emptied. Best
 * effort, as upstream's recorder: a failure to record is logged, never fails the reconcile.
 * Events of cluster-scoped objects go to the `default` namespace, as upstream's do.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { formatTimeOf } from '../go/time.ts';
import type { ApiClient } from './api-client.ts';
import type { Clock } from './clock.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

export class ApiEventRecorder implements EventRecorder {
  constructor(
    private readonly api: ApiClient,
    private readonly clock: Clock,
    /** The reporting component (upstream: the controller's name, e.g. `certificate-controller`). */
    private readonly component: string,
    private readonly logger: Logger,
  ) {}

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const namespace = obj.metadata.namespace || 'default';
    const now = formatTimeOf(new Date(this.clock.now()));
    const name = `${obj.metadata.name ?? 'object'}.${this.clock.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: obj.metadata.name,
        ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      reason,
      message,
      type,
      source: { component: this.component },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: this.component,
      reportingInstance: '',
    };
    this.api.create(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, event).catch((err: unknown) => {
      this.logger.debug({ err: err instanceof Error ? err.message : String(err), reason }, 'could not record an event');
    });
  }
}

/** Records events in memory: for tests. */
export class RecordingEventRecorder implements EventRecorder {
  readonly events: { key: string; type: EventType; reason: string; message: string }[] = [];

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const key = obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');
    this.events.push({ key, type, reason, message });
  }
}
