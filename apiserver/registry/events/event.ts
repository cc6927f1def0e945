/**
 * Event (events.k8s.io/v1): the new-style view of the core `events` resource. Objects are stored
 * in core v1 form, so both APIs see every event; fields are renamed on the way in and out.
 * Writes through this API get upstream's strict checks on top of the legacy ones, with errors
 * naming the core fields (`message`, `count`), as upstream validates the converted object.
 */
import type { FieldError } from '../../../shared/api/field.ts';
import { toGoShape } from '../../../shared/go/shape.ts';
import { deepCopy, type KubeObject } from '../../../shared/api/types.ts';
import {
  describe,
  int32,
  kindSchema,
  microTime,
  named,
  neverOmitted,
  object,
  objectReference,
  pb,
  string,
  time,
  type Schema,
} from '../../../shared/api/schema.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { eventSourceSchema, type CoreEvent, type EventSource, type ObjectReference } from '../../../shared/api/event.ts';
import {
  coreEventDefinition,
  eventSourceComponent,
  eventTable,
  validateLegacyEvent,
  validateNewStyleEventCreate,
  validateNewStyleEventUpdate,
} from '../core/event.ts';

export interface EventsV1Event extends KubeObject {
  eventTime?: string;
  series?: { count: number; lastObservedTime: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: EventSource;
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

/** Each events.k8s.io field and the core field it is stored as. */
const storedAs = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['type', 'type'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
] as const satisfies readonly (readonly [keyof EventsV1Event, keyof CoreEvent])[];

/**
 * Copies the renamed fields present in `from` into `into`, towards core or back. Every string of
 * events.k8s.io/v1 is omitempty, so the core Event's empty reportingComponent/reportingInstance
 * (which core serves, having no omitempty there) are left out on the way back.
 */
function copyRenamed(from: Readonly<Record<string, unknown>>, into: Record<string, unknown>, toCore: boolean): void {
  for (const [field, coreField] of storedAs) {
    const value = from[toCore ? field : coreField];
    if (value !== undefined && (toCore || value !== '')) into[toCore ? coreField : field] = deepCopy(value);
  }
}

export function toCoreEvent(event: EventsV1Event): CoreEvent {
  const core: CoreEvent = { apiVersion: 'v1', kind: 'Event', metadata: deepCopy(event.metadata) };
  copyRenamed(event, core, true);
  return toGoShape(core, coreEventDefinition.schema);
}

export function fromCoreEvent(stored: KubeObject): EventsV1Event {
  const event: EventsV1Event = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: deepCopy(stored.metadata) };
  copyRenamed(stored, event, false);
  return event;
}

function validateCreate(event: EventsV1Event): FieldError[] {
  const core = toCoreEvent(event);
  return [...validateLegacyEvent(core), ...validateNewStyleEventCreate(core)];
}

function validateUpdate(event: EventsV1Event, old: EventsV1Event): FieldError[] {
  const core = toCoreEvent(event);
  return [...validateLegacyEvent(core), ...validateNewStyleEventUpdate(core, toCoreEvent(old))];
}

const regarding =
  (field: keyof ObjectReference) =>
  (event: EventsV1Event): string =>
    event.regarding?.[field] ?? '';

/** events.k8s.io/v1 EventSeries: core's, with both fields required. */
const eventSeries = (): Schema =>
  named(
    'io.k8s.api.events.v1.EventSeries',
    'How often an event has recurred; the reporter updates it at most every few minutes.',
    object(
      {
        count: pb(1, neverOmitted(int32('Number of occurrences so far.'))),
        lastObservedTime: pb(2, microTime('When the last occurrence was seen.')),
      },
      ['count', 'lastObservedTime'],
    ),
  );

export const eventsV1EventDefinition = defineResource<EventsV1Event>({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  timeToLive: 'eventTTL',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  verbs: allVerbs,
  schema: describe(
    kindSchema(
      {
        eventTime: pb(2, microTime('When the event was first observed, to the microsecond. Required.')),
        series: pb(3, describe(eventSeries(), 'Recurrences of the event, when it is part of a series; absent for a one-off event.'), 'optional'),
        reportingController: pb(4, string('Controller that reported the event, such as kubernetes.io/kubelet. Required on create; cannot change.')),
        reportingInstance: pb(5, string('Instance of the reporting controller, such as kubelet-node-1; at most 128 characters. Required on create.')),
        action: pb(6, string('What was done or failed about the regarding object, such as Binding; at most 128 characters.')),
        reason: pb(7, string('Why the action was taken, in CamelCase, such as FailedScheduling; at most 128 characters.')),
        regarding: pb(8, describe(objectReference(), 'The object the event is about.')),
        related: pb(9, describe(objectReference(), 'A second object the event concerns, if any.'), 'optional'),
        note: pb(10, string('Human-readable description of what happened; at most 1 kB.')),
        type: pb(11, string('Normal, or Warning for events that call for attention.')),
        deprecatedSource: pb(12, describe(eventSourceSchema(), 'The legacy source of the event, kept for core v1 clients.')),
        deprecatedFirstTimestamp: pb(13, time('The legacy first-seen time, kept for core v1 clients.')),
        deprecatedLastTimestamp: pb(14, time('The legacy last-seen time, kept for core v1 clients.')),
        deprecatedCount: pb(15, int32('The legacy occurrence count, kept for core v1 clients.')),
      },
      ['eventTime'],
    ),
    'A report of something that happened to an object, in the structured form newer components write; stored as a core Event.',
  ),
  strategy: {
    validate: validateCreate,
    validateUpdate,
    allowCreateOnUpdate: true,
    // Upstream's event strategy: Events take no part in garbage collection.
    garbageCollectionPolicy: 'Unsupported',
  },
  storage: { resource: 'events', toStorage: toCoreEvent, fromStorage: fromCoreEvent },
  fieldSelectors: {
    'regarding.kind': regarding('kind'),
    'regarding.namespace': regarding('namespace'),
    'regarding.name': regarding('name'),
    'regarding.uid': regarding('uid'),
    'regarding.apiVersion': regarding('apiVersion'),
    'regarding.resourceVersion': regarding('resourceVersion'),
    'regarding.fieldPath': regarding('fieldPath'),
    reason: (event) => event.reason ?? '',
    reportingController: (event) => event.reportingController ?? '',
    source: (event) => eventSourceComponent(event.deprecatedSource, event.reportingController),
    type: (event) => event.type ?? '',
  },
  // Upstream prints both APIs' events from the stored core form.
  table: { columns: eventTable.columns, cells: (event, now) => eventTable.cells(toCoreEvent(event), now) },
});
