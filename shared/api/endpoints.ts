/**
 * core/v1 Endpoints: the addresses and ports behind a service, as one object per service, with
 * upstream's protobuf field numbers (k8s.io/api core/v1 generated.proto). Validation is
 * shared/validation/endpoints.ts.
 */
import type { KubeObject } from './types.ts';
import { atomicArray, describe, int32, kindSchema, named, object, objectReference, pb, string, type Schema } from './schema.ts';

export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

const endpointAddress = (): Schema =>
  named(coreV1('EndpointAddress'), 'One address of an endpoint.', {
    ...object(
      {
        ip: pb(1, string('IP of the endpoint; not loopback, link-local or unspecified.'), 'keepZero'),
        hostname: pb(3, string('Host name of the endpoint.')),
        nodeName: pb(4, string('Node hosting the endpoint.'), 'optional'),
        targetRef: pb(2, describe(objectReference(), 'The object (usually a pod) providing the endpoint.'), 'optional'),
      },
      ['ip'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const endpointPort = (): Schema =>
  named(coreV1('EndpointPort'), 'One port of the endpoints.', {
    ...object(
      {
        name: pb(1, string('Name of the port, matching the service port’s name; required when there is more than one port.')),
        port: pb(2, int32('Port number.'), 'keepZero'),
        protocol: pb(3, string('TCP (the default), UDP or SCTP.')),
        appProtocol: pb(4, string('Application protocol of the port.'), 'optional'),
      },
      ['port'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const endpointSubset = (): Schema =>
  named(
    coreV1('EndpointSubset'),
    'Addresses that share the same ports.',
    object({
      addresses: pb(1, describe(atomicArray(endpointAddress()), 'Addresses ready to receive traffic.')),
      notReadyAddresses: pb(2, describe(atomicArray(endpointAddress()), 'Addresses not ready yet, or failing their readiness checks.')),
      ports: pb(3, describe(atomicArray(endpointPort()), 'Ports of every address of the subset.')),
    }),
  );

export const endpointsSchema = (): Schema =>
  describe(
    kindSchema({
      subsets: pb(2, describe(atomicArray(endpointSubset()), 'The addresses and ports of the service, grouped by shared ports.')),
    }),
    'The addresses and ports that implement a service, named as the service.',
  );
