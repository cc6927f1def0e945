/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced): the capacity a CSI driver reports for one
 * storage class and topology segment. The inputs of the capacity query (storageClassName and
 * nodeTopology) are immutable; only the reported quantities change.
 */
import { FieldPath, invalid, type FieldError } from '../../../shared/api/field.ts';
import { parseQuantity, quantityString } from '../../../shared/api/quantity.ts';
import { describe, kindSchema, labelSelector, pb, quantity, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { LabelSelectorObject } from '../../../shared/selectors/labels.ts';
import { isDNS1123Subdomain } from '../../../shared/validation/names.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { hasInvalidLabelValue, validateLabelSelector } from '../../../shared/validation/label-selector.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { nameColumn } from '../table.ts';

export interface CSIStorageCapacity extends KubeObject {
  storageClassName?: string;
  nodeTopology?: LabelSelectorObject;
  capacity?: string | number;
  maximumVolumeSize?: string | number;
}

function validateCapacity(obj: CSIStorageCapacity, allowInvalidValues: boolean): FieldError[] {
  const errs = validateLabelSelector(obj.nodeTopology, allowInvalidValues, FieldPath.root('nodeTopology'));
  const className = obj.storageClassName ?? '';
  for (const msg of isDNS1123Subdomain(className)) errs.push(invalid(FieldPath.root('storageClassName'), className, msg));
  // Upstream checks the sign of capacity only; maximumVolumeSize is not validated.
  const capacity = obj.capacity === undefined ? null : parseQuantity(obj.capacity);
  if (capacity !== null && capacity < 0) {
    errs.push(invalid(FieldPath.root('capacity'), obj.capacity, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const csiStorageCapacityDefinition = defineResource<CSIStorageCapacity>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  namespaced: true,
  verbs: allVerbs,
  schema: describe(
    kindSchema(
      {
        storageClassName: pb(3, string('Storage class the capacity applies to. Required; cannot change.'), 'keepZero'),
        nodeTopology: pb(
          2,
          describe(labelSelector(), 'Nodes from which the storage is reachable, by their labels; absent means none. Cannot change.'),
          'optional',
        ),
        capacity: pb(
          4,
          quantity('Space still available for new volumes of the class on those nodes, as the driver last reported; absent means unknown.'),
          'optional',
        ),
        maximumVolumeSize: pb(5, quantity('Size of the largest volume that can be created there now; absent means the same as capacity.'), 'optional'),
      },
      ['storageClassName'],
    ),
    'Storage a CSI driver can still provide for a storage class on a group of nodes, published by the driver for the scheduler.',
  ),
  strategy: {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    validate(obj) {
      return validateCapacity(obj, false);
    },
    validateUpdate(obj, old) {
      return [
        ...validateCapacity(obj, hasInvalidLabelValue(old.nodeTopology)),
        ...validateImmutableField(obj.nodeTopology, old.nodeTopology, FieldPath.root('nodeTopology'), semanticEqual),
        ...validateImmutableField(obj.storageClassName ?? '', old.storageClassName ?? '', FieldPath.root('storageClassName')),
      ];
    },
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'StorageClassName',
        type: 'string',
        description:
          'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.',
      },
      {
        name: 'Capacity',
        type: 'string',
        description:
          'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.',
      },
    ],
    cells: (capacity) => [
      capacity.metadata.name,
      capacity.storageClassName ?? '',
      capacity.capacity === undefined || capacity.capacity === null ? '<unset>' : quantityString(capacity.capacity),
    ],
  },
});
