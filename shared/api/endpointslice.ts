/**
 * discovery.k8s.io/v1 EndpointSlice: a subset of a service's endpoints of one address type, with
 * upstream's protobuf field numbers (k8s.io/api discovery/v1 generated.proto, 1.32: hints by zone
 * only). Validation is shared/validation/endpointslice.ts.
 */
import type { KubeObject } from './types.ts';
import {
  atomicArray,
  boolean,
  describe,
  int32,
  kindSchema,
  map,
  named,
  neverOmitted,
  object,
  objectReference,
  pb,
  setArray,
  string,
  type Schema,
} from './schema.ts';

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface Endpoint {
  addresses?: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: Record<string, unknown>;
  deprecatedTopology?: Record<string, string>;
  nodeName?: string;
  zone?: string;
  hints?: { forZones?: { name?: string }[] };
}

export interface EndpointSlicePort {
  name?: string;
  protocol?: string;
  port?: number;
  appProtocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Endpoint[];
  ports?: EndpointSlicePort[];
}

export const discoveryGroup = 'discovery.k8s.io';
/** The label naming the service a slice belongs to (discovery.LabelServiceName). */
export const serviceNameLabel = 'kubernetes.io/service-name';
/** The label naming the controller managing a slice (discovery.LabelManagedBy). */
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';

const discoveryV1 = (type: string): string => `io.k8s.api.discovery.v1.${type}`;

const endpoint = (): Schema =>
  named(
    discoveryV1('Endpoint'),
    'One endpoint of a service.',
    object(
      {
        addresses: pb(1, describe(setArray(string()), 'Addresses of the endpoint, of the slice’s address type; consumers use the first.')),
        conditions: pb(
          2,
          describe(
            named(
              discoveryV1('EndpointConditions'),
              'The state of an endpoint.',
              object({
                ready: pb(1, boolean('The endpoint is ready to receive traffic.'), 'optional'),
                serving: pb(2, boolean('The endpoint is serving, whether or not it is terminating.'), 'optional'),
                terminating: pb(3, boolean('The endpoint is terminating.'), 'optional'),
              }),
            ),
            'The current state of the endpoint.',
          ),
        ),
        hostname: pb(3, string('Host name of the endpoint, a DNS label.'), 'optional'),
        targetRef: pb(4, describe(objectReference(), 'The object providing the endpoint.'), 'optional'),
        deprecatedTopology: pb(5, map(string(), 'Deprecated: topology of the endpoint; use zone and nodeName.')),
        nodeName: pb(6, string('Node hosting the endpoint.'), 'optional'),
        zone: pb(7, string('Zone the endpoint is in.'), 'optional'),
        hints: pb(
          8,
          describe(
            named(
              discoveryV1('EndpointHints'),
              'Hints for consumers of the endpoint.',
              object({
                forZones: pb(
                  1,
                  describe(
                    atomicArray(
                      named(
                        discoveryV1('ForZone'),
                        'A zone that should consume the endpoint.',
                        object({ name: pb(1, neverOmitted(string('Name of the zone.'))) }, ['name']),
                      ),
                    ),
                    'Zones that should consume this endpoint.',
                  ),
                ),
              }),
            ),
            'Hints on how the endpoint should be consumed.',
          ),
          'optional',
        ),
      },
      ['addresses'],
    ),
  );

const endpointPort = (): Schema =>
  named(discoveryV1('EndpointPort'), 'One port of the endpoints of a slice.', {
    ...object({
      name: pb(1, string('Name of the port, matching the service port’s name.'), 'optional'),
      protocol: pb(2, string('TCP (the default), UDP or SCTP.'), 'optional'),
      port: pb(3, int32('Port number; unset means every port.'), 'optional'),
      appProtocol: pb(4, string('Application protocol of the port.'), 'optional'),
    }),
    'x-kubernetes-map-type': 'atomic',
  });

export const endpointSliceSchema = (): Schema =>
  describe(
    kindSchema(
      {
        addressType: pb(4, neverOmitted(string('Type of the addresses: IPv4, IPv6 or FQDN. Cannot change.'))),
        endpoints: pb(2, describe(atomicArray(endpoint()), 'The endpoints of the slice; at most 1000.')),
        ports: pb(3, describe(atomicArray(endpointPort()), 'The ports of every endpoint of the slice; at most 20000.')),
      },
      ['addressType', 'endpoints'],
    ),
    'A subset of the endpoints of a service, of one address type; the label kubernetes.io/service-name names the service.',
  );
