/**
 * Event (events.k8s.io/v1): the new-style view of the core `events` resource. Objects are stored
 * in core v1 form, so both APIs see every event; fields are renamed on the way in and out.
 * Writes through this API get upstream's strict checks on top of the legacy ones, with errors
 * naming the core fields (`message`, `count`), as upstream validates the converted object.
 */
import type { FieldError } from '../../../shared/api/field.ts';
import { deepCopy, type KubeObject } from '../../../shared/api/types.ts';
import { int32, kindSchema, microTime, pb, string, time } from '../../../shared/api/schema.ts';
import { allVerbs, defineResource } from '../definition.ts';
import {
  atomicObjectReference,
  eventSeriesSchema,
  eventSourceComponent,
  eventSourceSchema,
  eventTable,
  validateLegacyEvent,
  validateNewStyleEventCreate,
  validateNewStyleEventUpdate,
  type CoreEvent,
  type EventSource,
  type ObjectReference,
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

/** Copies the renamed fields present in `from` into `into`, towards core or back. */
function copyRenamed(from: Readonly<Record<string, unknown>>, into: Record<string, unknown>, toCore: boolean): void {
  for (const [field, coreField] of storedAs) {
    const value = from[toCore ? field : coreField];
    if (value !== undefined) into[toCore ? coreField : field] = deepCopy(value);
  }
}

export function toCoreEvent(event: EventsV1Event): CoreEvent {
  const core: CoreEvent = { apiVersion: 'v1', kind: 'Event', metadata: deepCopy(event.metadata) };
  copyRenamed(event, core, true);
  return core;
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

export const eventsV1EventDefinition = defineResource<EventsV1Event>({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    {
      eventTime: pb(2, microTime()),
      series: pb(3, eventSeriesSchema(['count', 'lastObservedTime']), 'optional'),
      reportingController: pb(4, string()),
      reportingInstance: pb(5, string()),
      action: pb(6, string()),
      reason: pb(7, string()),
      regarding: pb(8, atomicObjectReference()),
      related: pb(9, atomicObjectReference(), 'optional'),
      note: pb(10, string()),
      type: pb(11, string()),
      deprecatedSource: pb(12, eventSourceSchema()),
      deprecatedFirstTimestamp: pb(13, time()),
      deprecatedLastTimestamp: pb(14, time()),
      deprecatedCount: pb(15, int32()),
    },
    ['eventTime'],
  ),
  strategy: {
    validate: validateCreate,
    validateUpdate,
    allowCreateOnUpdate: true,
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
