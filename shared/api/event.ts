/**
 * Event (v1, core): its TypeScript shape and schema, shared by the API server's kinds
 * (apiserver/registry/core/event.ts, which adds validation and the table, and events.k8s.io's
 * view of the same resource) and by clients that record events (shared/client/events.ts, in
 * protobuf for the node agent). Field numbers are upstream's generated.proto.
 */
import { describe, int32, kindSchema, microTime, named, object, objectReference, pb, string, time, type Schema } from './schema.ts';
import type { KubeObject } from './types.ts';

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  lastObservedTime?: string;
}

export interface CoreEvent extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  /** The core name of events.k8s.io's reportingController. */
  reportingComponent?: string;
  reportingInstance?: string;
}

/** core/v1 EventSource, which events.k8s.io/v1 keeps as deprecatedSource. */
export const eventSourceSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.EventSource',
    'The component that reported an event, in the legacy form.',
    object({
      component: pb(1, string('Name of the reporting component, such as kubelet or default-scheduler.')),
      host: pb(2, string('Node the reporting component runs on, when it runs on one.')),
    }),
  );

/** core/v1 EventSeries; events.k8s.io/v1 has its own type, in the same protobuf form. */
const eventSeriesSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.EventSeries',
    'How often an event has recurred since it was first reported.',
    object({
      count: pb(1, int32('Number of occurrences so far.')),
      lastObservedTime: pb(2, microTime('When the last occurrence was seen.')),
    }),
  );

/** The core Event kind's schema. */
export const coreEventSchema = (): Schema =>
  describe(
    kindSchema(
      {
        involvedObject: pb(2, describe(objectReference(), 'The object the event is about.')),
        reason: pb(3, string('Short machine-readable reason for the event, in CamelCase, such as FailedMount.')),
        message: pb(4, string('Human-readable description of what happened.')),
        source: pb(5, describe(eventSourceSchema(), 'The component that reported the event; new clients set reportingComponent instead.')),
        firstTimestamp: pb(6, time('When the event was first seen.')),
        lastTimestamp: pb(7, time('When the event was last seen.')),
        count: pb(8, int32('How many times the event has been seen.')),
        type: pb(9, string('Normal, or Warning for events that call for attention.')),
        eventTime: pb(10, microTime('When the event was first observed, to the microsecond; set by new-style clients.')),
        series: pb(11, describe(eventSeriesSchema(), 'Recurrences of the event, when it is part of a series; absent for a one-off event.'), 'optional'),
        action: pb(12, string('What was done or failed about the involved object, such as Binding.')),
        related: pb(13, describe(objectReference(), 'A second object the event concerns, such as the pod a node event is about.'), 'optional'),
        reportingComponent: pb(
          14,
          string('Controller that reported the event, such as kubernetes.io/kubelet; events.k8s.io calls it reportingController.'),
          'keepZero',
        ),
        reportingInstance: pb(15, string('Instance of the reporting controller, such as kubelet-node-1.'), 'keepZero'),
      },
      ['metadata', 'involvedObject'],
    ),
    'A report of something that happened to an object, meant for people: what, why, how often and who reported it.',
  );
