/**
 * Event (v1). Requests through the core API get only upstream's lenient legacy checks, for old
 * clients' sake; the strict checks for new-style events (exported here) apply to writes through
 * events.k8s.io/v1, which stores into the same `events` resource. Field paths name the core
 * fields even there (`message`, `reportingController`), as upstream validates the core form.
 */
import { FieldPath, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import { coreEventSchema, type CoreEvent, type EventSeries, type EventSource, type ObjectReference } from '../../../shared/api/event.ts';
import { isDNS1123Subdomain, nameIsPathSegment } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource, type TableDefinition } from '../definition.ts';
import { nameColumn, timeSince, timestampMillis } from '../table.ts';
import { sameAsGoValue, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import { utf8Size } from './shared-validation.ts';
import { append } from '../../../shared/api/append.ts';
import { tryParseTime, zeroTimeSeconds } from '../../../shared/go/time.ts';

export type { CoreEvent, EventSeries, EventSource, ObjectReference };

export const eventTypes = ['Normal', 'Warning'] as const;

const limits = { reportingInstance: 128, action: 128, reason: 128, message: 1024 } as const;

const zeroInstant = zeroTimeSeconds * 1e6;

/** A time as microseconds since the epoch; upstream compares times by instant, to the microsecond. A missing time is Go's zero time. */
function instant(value: string | undefined): number {
  if (!value) return zeroInstant;
  const parsed = tryParseTime(value);
  return parsed === null ? Number.NaN : parsed.seconds * 1e6 + Math.floor(parsed.nanos / 1000);
}

const isZeroTime = (value: string | undefined): boolean => instant(value) === zeroInstant;
const sameInstant = (a: unknown, b: unknown): boolean =>
  (typeof a === 'string' || a === undefined || a === null) &&
  (typeof b === 'string' || b === undefined || b === null) &&
  (a === b || instant(a ?? undefined) === instant(b ?? undefined));

function tooLongText(path: string, value: string | undefined, max: number): FieldError[] {
  return utf8Size(value ?? '') > max ? [invalid(FieldPath.root(path), '', `can have at most ${max} characters`)] : [];
}

/** Upstream's legacyValidateEvent: what every event must satisfy, whichever API wrote it. */
export function validateLegacyEvent(event: CoreEvent): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  const mismatch = (): FieldError => invalid(FieldPath.root('involvedObject').child('namespace'), involvedNamespace, 'does not match event.namespace');
  if (isZeroTime(event.eventTime)) {
    // Old-style events: a cluster-scoped object's events may live in "default" (old clients put them there).
    if (involvedNamespace ? namespace !== involvedNamespace : namespace !== '' && namespace !== 'default') errors.push(mismatch());
  } else {
    if (!involvedNamespace && namespace !== 'default' && namespace !== 'kube-system') errors.push(mismatch());
    const controller = event.reportingComponent ?? '';
    if (!controller) errors.push(required(FieldPath.root('reportingController')));
    append(errors, validateQualifiedName(controller, FieldPath.root('reportingController')));
    if (!event.reportingInstance) errors.push(required(FieldPath.root('reportingInstance')));
    append(errors, tooLongText('reportingInstance', event.reportingInstance, limits.reportingInstance));
    if (!event.action) errors.push(required(FieldPath.root('action')));
    append(errors, tooLongText('action', event.action, limits.action));
    if (!event.reason) errors.push(required(FieldPath.root('reason')));
    append(errors, tooLongText('reason', event.reason, limits.reason));
    append(errors, tooLongText('message', event.message, limits.message));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errors.push(invalid(FieldPath.root('namespace'), namespace, msg));
  return errors;
}

function validateSeries(event: CoreEvent): FieldError[] {
  const series = event.series;
  if (!series) return [];
  const errors: FieldError[] = [];
  if ((series.count ?? 0) < 2) errors.push(invalid(FieldPath.root('series.count'), '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) errors.push(required(FieldPath.root('series.lastObservedTime')));
  return errors;
}

/** Upstream's strict checks of a new event written through events.k8s.io/v1 (after the legacy ones). */
export function validateNewStyleEventCreate(event: CoreEvent): FieldError[] {
  const errors = validateSeries(event);
  if (isZeroTime(event.eventTime)) errors.push(required(FieldPath.root('eventTime')));
  if (!eventTypes.some((t) => t === event.type)) errors.push(invalid(FieldPath.root('type'), '', `has invalid value: ${event.type ?? ''}`));
  const unset = (path: string): FieldError => invalid(FieldPath.root(path), '', 'needs to be unset');
  if (!isZeroTime(event.firstTimestamp)) errors.push(unset('firstTimestamp'));
  if (!isZeroTime(event.lastTimestamp)) errors.push(unset('lastTimestamp'));
  if (event.count) errors.push(unset('count'));
  if (event.source?.component || event.source?.host) errors.push(unset('source'));
  return errors;
}

/** Upstream's strict update checks (after the legacy ones): an event changes only by its series. */
export function validateNewStyleEventUpdate(event: CoreEvent, old: CoreEvent): FieldError[] {
  const errors = sameAsGoValue(event.series, old.series) ? [] : validateSeries(event);
  const path = (name: string): FieldPath => FieldPath.root(name);
  const text = (e: CoreEvent, field: 'reason' | 'message' | 'type' | 'action' | 'reportingComponent' | 'reportingInstance'): string => e[field] ?? '';
  const checks: FieldError[][] = [
    validateImmutableField(event.involvedObject ?? {}, old.involvedObject ?? {}, path('involvedObject')),
    validateImmutableField(text(event, 'reason'), text(old, 'reason'), path('reason')),
    validateImmutableField(text(event, 'message'), text(old, 'message'), path('message')),
    validateImmutableField(event.source ?? {}, old.source ?? {}, path('source')),
    validateImmutableField(event.firstTimestamp ?? null, old.firstTimestamp ?? null, path('firstTimestamp'), sameInstant),
    validateImmutableField(event.lastTimestamp ?? null, old.lastTimestamp ?? null, path('lastTimestamp'), sameInstant),
    validateImmutableField(event.count ?? 0, old.count ?? 0, path('count')),
    // Upstream checks reason twice, so a changed reason is reported twice.
    validateImmutableField(text(event, 'reason'), text(old, 'reason'), path('reason')),
    validateImmutableField(text(event, 'type'), text(old, 'type'), path('type')),
    validateImmutableField(event.eventTime ?? null, old.eventTime ?? null, path('eventTime'), sameInstant),
    validateImmutableField(text(event, 'action'), text(old, 'action'), path('action')),
    validateImmutableField(event.related ?? null, old.related ?? null, path('related')),
    validateImmutableField(text(event, 'reportingComponent'), text(old, 'reportingComponent'), path('reportingController')),
    validateImmutableField(text(event, 'reportingInstance'), text(old, 'reportingInstance'), path('reportingInstance')),
  ];
  return [...errors, ...checks.flat()];
}

/** `source` selects by the reporting component, falling back to reportingComponent for new-style events. */
export const eventSourceComponent = (source: EventSource | undefined, reporting: string | undefined): string => source?.component || reporting || '';

const involved =
  (field: keyof ObjectReference) =>
  (event: CoreEvent): string =>
    event.involvedObject?.[field] ?? '';

/** Go's strings.TrimSpace: Unicode White_Space at either end. */
const trimSpace = (text: string): string => text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');

/** The Source cell: component (or reporting controller), then host (or reporting instance) when known. */
function eventSourceText(event: CoreEvent): string {
  const component = event.source?.component || event.reportingComponent || '';
  const host = event.source?.host || event.reportingInstance || '';
  return host ? `${component}, ${host}` : component;
}

/**
 * Upstream's event columns, shared by core and events.k8s.io events (one storage, one printer).
 * Times fall back as upstream's: first seen to eventTime, last seen to first seen, and a series
 * gives both the last time and the count; a singleton new-style event counts 1.
 */
export const eventTable: TableDefinition<CoreEvent> = {
  columns: [
    { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.' },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future' },
    {
      name: 'Reason',
      type: 'string',
      description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    },
    { name: 'Object', type: 'string', description: 'The object that this event is about.' },
    {
      name: 'Subobject',
      type: 'string',
      priority: 1,
      description:
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    },
    { name: 'Source', type: 'string', priority: 1, description: 'The component reporting this event. Should be a short machine understandable string.' },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.' },
    {
      name: 'First Seen',
      type: 'string',
      priority: 1,
      description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
    },
    { name: 'Count', type: 'string', priority: 1, description: 'The number of times this event has occurred.' },
    { ...nameColumn, priority: 1 },
  ],
  cells: (event, now) => {
    const firstSeen = timeSince(timestampMillis(event.firstTimestamp) === null ? event.eventTime : event.firstTimestamp, now);
    let lastSeen = timestampMillis(event.lastTimestamp) === null ? firstSeen : timeSince(event.lastTimestamp, now);
    let count = event.count ?? 0;
    if (event.series) {
      lastSeen = timeSince(event.series.lastObservedTime, now);
      count = event.series.count ?? 0;
    } else if (count === 0) {
      count = 1;
    }
    const kind = (event.involvedObject?.kind ?? '').toLowerCase();
    const name = event.involvedObject?.name ?? '';
    return [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      name ? `${kind}/${name}` : kind,
      event.involvedObject?.fieldPath ?? '',
      eventSourceText(event),
      trimSpace(event.message ?? ''),
      firstSeen,
      count,
      event.metadata.name,
    ];
  },
};

export const coreEventDefinition = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  timeToLive: 'eventTTL',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  verbs: allVerbs,
  // Core events are named freely: upstream checks only that the name is a usable path segment.
  nameRule: nameIsPathSegment,
  schema: coreEventSchema(),
  strategy: {
    validate: validateLegacyEvent,
    validateUpdate: (event) => validateLegacyEvent(event),
    allowCreateOnUpdate: true,
    // Upstream's event strategy: Events take no part in garbage collection.
    garbageCollectionPolicy: 'Unsupported',
  },
  fieldSelectors: {
    'involvedObject.kind': involved('kind'),
    'involvedObject.namespace': involved('namespace'),
    'involvedObject.name': involved('name'),
    'involvedObject.uid': involved('uid'),
    'involvedObject.apiVersion': involved('apiVersion'),
    'involvedObject.resourceVersion': involved('resourceVersion'),
    'involvedObject.fieldPath': involved('fieldPath'),
    reason: (event) => event.reason ?? '',
    reportingComponent: (event) => event.reportingComponent ?? '',
    source: (event) => eventSourceComponent(event.source, event.reportingComponent),
    type: (event) => event.type ?? '',
  },
  table: eventTable,
});
