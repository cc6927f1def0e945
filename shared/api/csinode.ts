/**
 * CSINode (storage.k8s.io/v1): its TypeScript shape and schema, shared by the API server's kind
 * (apiserver/registry/volumes/csinode.ts, which adds validation) and by the node agent, which
 * writes its node's CSINode. Field numbers are upstream's generated.proto.
 */
import { atomicArray, describe, int32, keyedArray, kindSchema, named, object, patchMerge, pb, string, type Schema } from './schema.ts';
import type { KubeObject } from './types.ts';

export interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  topologyKeys?: string[];
  allocatable?: { count?: number };
}

export interface CSINode extends KubeObject {
  spec?: { drivers?: CSINodeDriver[] };
}

const csiNodeDriver = (): Schema =>
  named(
    'io.k8s.api.storage.v1.CSINodeDriver',
    'A CSI driver installed on a node, as the kubelet registered it.',
    object(
      {
        name: pb(1, string('Name of the driver, as in its CSIDriver object.'), 'keepZero'),
        nodeID: pb(2, string('Identifier of the node as the driver knows it; sent to the driver when attaching volumes.'), 'keepZero'),
        allocatable: pb(
          4,
          describe(
            named(
              'io.k8s.api.storage.v1.VolumeNodeResources',
              'Limits on the volumes a driver can handle on one node.',
              object({ count: pb(1, int32('Most volumes of this driver the node can have in use at once; absent means no limit.'), 'optional') }),
            ),
            'How many volumes of the driver the node can take.',
          ),
          'optional',
        ),
        topologyKeys: pb(
          3,
          describe(atomicArray(string()), 'Node label keys the driver uses to describe where its volumes are reachable, such as topology.kubernetes.io/zone.'),
        ),
      },
      ['name', 'nodeID'],
    ),
  );

const csiNodeSpec = (): Schema =>
  named(
    'io.k8s.api.storage.v1.CSINodeSpec',
    'The CSI drivers installed on a node.',
    object(
      { drivers: pb(1, describe(patchMerge(keyedArray(csiNodeDriver(), ['name']), 'name'), 'Every CSI driver on the node, one entry per driver name.')) },
      ['drivers'],
    ),
  );

/** The CSINode kind's schema. */
export const csiNodeSchema = (): Schema =>
  describe(
    kindSchema({ spec: pb(2, describe(csiNodeSpec(), 'The CSI drivers on the node. Required.')) }, ['spec']),
    'The CSI drivers installed on one node, named after the node and written by its kubelet.',
  );
