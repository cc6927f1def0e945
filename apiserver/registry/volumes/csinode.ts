/**
 * CSINode (storage.k8s.io/v1): the CSI drivers registered on one node, written by its node agent.
 * Named after the node (a DNS subdomain, checked generically). A driver entry, once present, may
 * not change; drivers may be added and removed.
 */
import { FieldPath, duplicate, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import { atomicArray, describe, int32, keyedArray, kindSchema, named, object, patchMerge, pb, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { validateCSIDriverName } from '../../../shared/validation/csi-driver-name.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import { append } from '../../../shared/api/append.ts';

export interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  topologyKeys?: string[];
  allocatable?: { count?: number };
}

export interface CSINode extends KubeObject {
  spec?: { drivers?: CSINodeDriver[] };
}

/** Upstream allows node IDs up to 256 bytes since 1.22 (192 before). */
const nodeIDMaxLength = 256;

const driversPath = FieldPath.root('spec').child('drivers');

function validateDriver(driver: CSINodeDriver, path: FieldPath, seenNames: Set<string>): FieldError[] {
  const errs = validateCSIDriverName(driver.name, path.child('name'));
  const nodeID = driver.nodeID ?? '';
  if (nodeID === '') errs.push(required(path.child('nodeID')));
  if (Buffer.byteLength(nodeID) > nodeIDMaxLength) {
    errs.push(invalid(path.child('nodeID'), nodeID, `must be ${nodeIDMaxLength} characters or less`));
  }
  const count = driver.allocatable?.count;
  if (count !== undefined && count < 0) {
    errs.push(invalid(path.child('allocatable', 'count'), count, 'must be greater than or equal to 0'));
  }
  const name = driver.name ?? '';
  if (seenNames.has(name)) errs.push(duplicate(path.child('name'), name));
  seenNames.add(name);
  // Topology key errors are reported on the driver entry itself, as upstream does.
  const seenKeys = new Set<string>();
  for (const key of driver.topologyKeys ?? []) {
    if (key === '') errs.push(required(path));
    if (seenKeys.has(key)) errs.push(duplicate(path, key));
    seenKeys.add(key);
    append(errs, validateQualifiedName(key, path));
  }
  return errs;
}

function validateCSINode(obj: CSINode): FieldError[] {
  const seenNames = new Set<string>();
  return (obj.spec?.drivers ?? []).flatMap((driver, i) => validateDriver(driver, driversPath.index(i), seenNames));
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

export const csiNodeDefinition = defineResource<CSINode>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  singular: 'csinode',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: describe(
    kindSchema({ spec: pb(2, describe(csiNodeSpec(), 'The CSI drivers on the node. Required.')) }, ['spec']),
    'The CSI drivers installed on one node, named after the node and written by its kubelet.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    validate: validateCSINode,
    validateUpdate(obj, old) {
      // Upstream validates the new object twice on update (the strategy and ValidateCSINodeUpdate
      // both do), so each problem appears twice among the causes.
      const errs = [...validateCSINode(obj), ...validateCSINode(obj)];
      const drivers = obj.spec?.drivers ?? [];
      for (const oldDriver of old.spec?.drivers ?? []) {
        for (const driver of drivers) {
          if ((driver.name ?? '') === (oldDriver.name ?? '')) append(errs, validateImmutableField(driver, oldDriver, driversPath, semanticEqual));
        }
      }
      return errs;
    },
  },
  table: {
    columns: [nameColumn, { name: 'Drivers', type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node' }, ageColumn],
    cells: (node, now) => [node.metadata.name, node.spec?.drivers?.length ?? 0, age(node, now)],
  },
});
