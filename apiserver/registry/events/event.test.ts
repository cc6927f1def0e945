import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../../../shared/api/field.ts';
import type { CoreEvent } from '../core/event.ts';
import { eventsV1EventDefinition, fromCoreEvent, toCoreEvent, type EventsV1Event } from './event.ts';

const ctx = { user: { username: 'tester', groups: [] }, now: new Date('2024-01-01T00:00:00Z') };
const strategy = eventsV1EventDefinition.strategy;
const strings = (errors: FieldError[] | undefined): string[] => (errors ?? []).map(fieldErrorString);

const full: EventsV1Event = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'e1', namespace: 'default', uid: 'u1', resourceVersion: '7', labels: { a: 'b' } },
  eventTime: '2024-01-01T00:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-01-01T00:01:00.000001Z' },
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Act',
  reason: 'Because',
  regarding: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'pu', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec' },
  related: { kind: 'Node', name: 'n' },
  note: 'a note',
  type: 'Normal',
  deprecatedSource: { component: 'c', host: 'h' },
  deprecatedFirstTimestamp: '2023-12-31T00:00:00Z',
  deprecatedLastTimestamp: '2023-12-31T01:00:00Z',
  deprecatedCount: 4,
};

const core: CoreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e1', namespace: 'default', uid: 'u1', resourceVersion: '7', labels: { a: 'b' } },
  eventTime: '2024-01-01T00:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-01-01T00:01:00.000001Z' },
  reportingComponent: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Act',
  reason: 'Because',
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: 'pu', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec' },
  related: { kind: 'Node', name: 'n' },
  message: 'a note',
  type: 'Normal',
  source: { component: 'c', host: 'h' },
  firstTimestamp: '2023-12-31T00:00:00Z',
  lastTimestamp: '2023-12-31T01:00:00Z',
  count: 4,
};

/** A valid new event as an events.k8s.io client writes it. */
const fresh = (fields: Partial<EventsV1Event> = {}): EventsV1Event => ({
  metadata: { name: 'e1', namespace: 'default' },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Act',
  reason: 'Because',
  regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
  type: 'Normal',
  ...fields,
});

describe('eventsV1EventDefinition', () => {
  it('is events.k8s.io/v1 events, short name ev, namespaced, stored with core events', () => {
    assert.equal(eventsV1EventDefinition.group, 'events.k8s.io');
    assert.equal(eventsV1EventDefinition.version, 'v1');
    assert.equal(eventsV1EventDefinition.plural, 'events');
    assert.deepEqual(eventsV1EventDefinition.shortNames, ['ev']);
    assert.equal(eventsV1EventDefinition.namespaced, true);
    assert.equal(eventsV1EventDefinition.storage?.resource, 'events');
    assert.deepEqual(eventsV1EventDefinition.schema.required, ['eventTime']);
    assert.deepEqual(eventsV1EventDefinition.schema.properties?.series?.required, ['count', 'lastObservedTime']);
  });

  describe('storage conversion', () => {
    it('renames every field into the core form', () => {
      assert.deepEqual(toCoreEvent(full), core);
    });

    it('renames every field back', () => {
      assert.deepEqual(fromCoreEvent(core), full);
    });

    it('round-trips both ways without loss', () => {
      assert.deepEqual(fromCoreEvent(toCoreEvent(full)), full);
      assert.deepEqual(toCoreEvent(fromCoreEvent(core)), core);
    });

    it("adds only core's non-omitempty zeros for absent fields and shares no objects with its input", () => {
      const minimal: EventsV1Event = { metadata: { name: 'e' }, eventTime: '2024-01-01T00:00:00Z' };
      const core = toCoreEvent(minimal);
      assert.deepEqual(core, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e' },
        eventTime: '2024-01-01T00:00:00Z',
        reportingComponent: '',
        reportingInstance: '',
      });
      // Back in events.k8s.io/v1, where every string is omitempty, the empty ones are gone again.
      assert.deepEqual(fromCoreEvent(core), { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...minimal });
      const converted = toCoreEvent(full);
      assert.notEqual(converted.involvedObject, full.regarding);
      assert.notEqual(converted.metadata, full.metadata);
    });

    it('is what the definition stores with', () => {
      assert.equal(eventsV1EventDefinition.storage?.toStorage, toCoreEvent);
      assert.equal(eventsV1EventDefinition.storage?.fromStorage, fromCoreEvent);
    });
  });

  describe('create', () => {
    it('accepts a complete new event', () => {
      assert.deepEqual(strings(strategy.validate(fresh(), ctx)), []);
    });

    it('reports legacy and strict problems under the core field names', () => {
      const e = fresh({
        eventTime: undefined,
        type: 'Info',
        note: 'n'.repeat(1025),
        deprecatedCount: 2,
        deprecatedSource: { component: 'x' },
        deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
      });
      assert.deepEqual(strings(strategy.validate(e, ctx)), [
        'eventTime: Required value',
        'type: Invalid value: "": has invalid value: Info',
        'firstTimestamp: Invalid value: "": needs to be unset',
        'count: Invalid value: "": needs to be unset',
        'source: Invalid value: "": needs to be unset',
      ]);
      assert.deepEqual(strings(strategy.validate(fresh({ note: 'n'.repeat(1025), action: '' }), ctx)), [
        'action: Required value',
        'message: Invalid value: "": can have at most 1024 characters',
      ]);
    });

    it('checks the series', () => {
      assert.deepEqual(strings(strategy.validate(fresh({ series: { count: 1, lastObservedTime: '2024-01-01T00:00:00Z' } }), ctx)), [
        'series.count: Invalid value: "": should be at least 2',
      ]);
    });
  });

  describe('update', () => {
    it('lets the series grow and nothing else change', () => {
      const old = fresh();
      assert.deepEqual(strings(strategy.validateUpdate?.(fresh({ series: { count: 2, lastObservedTime: '2024-01-01T00:02:00Z' } }), old, ctx)), []);
      assert.deepEqual(strings(strategy.validateUpdate?.(fresh({ note: 'changed' }), old, ctx)), ['message: Invalid value: "changed": field is immutable']);
      assert.deepEqual(strings(strategy.validateUpdate?.(fresh({ regarding: { kind: 'Pod', namespace: 'default', name: 'q' } }), old, ctx)), [
        'involvedObject: Invalid value: {"kind":"Pod","namespace":"default","name":"q"}: field is immutable',
      ]);
    });
  });

  it('selects by the events.k8s.io field names', () => {
    const selectors = eventsV1EventDefinition.fieldSelectors ?? {};
    assert.equal(selectors['regarding.name']?.(full), 'p');
    assert.equal(selectors['regarding.fieldPath']?.(full), 'spec');
    assert.equal(selectors.reportingController?.(full), 'example.com/ctl');
    assert.equal(selectors.source?.(full), 'c');
    assert.equal(selectors.source?.(fresh()), 'example.com/ctl');
    assert.equal(selectors.type?.(full), 'Normal');
    assert.equal(selectors.reason?.(full), 'Because');
  });
});
