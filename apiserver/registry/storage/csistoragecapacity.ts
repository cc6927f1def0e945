/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced): the capacity a CSI driver reports for one
 * storage class and topology segment. The inputs of the capacity query (storageClassName and
 * nodeTopology) are immutable; only the reported quantities change.
 */
import { FieldPath, forbidden, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import { parseQuantity } from '../../../shared/api/quantity.ts';
import { kindSchema, labelSelector, pb, quantity, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { isDNS1123Subdomain, isValidLabelValue } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { validateLabels } from '../../../shared/validation/objectmeta.ts';
import { validateImmutableField, validateQualifiedName } from '../core/shared-validation.ts';
import { semanticEqual } from './validation.ts';

export interface LabelSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface CSIStorageCapacity extends KubeObject {
  storageClassName?: string;
  nodeTopology?: LabelSelector;
  capacity?: string | number;
  maximumVolumeSize?: string | number;
}

/**
 * upstream's metav1 ValidateLabelSelector. Values of match expressions are checked as label
 * values unless the stored object already holds invalid ones (then an update may keep them).
 */
function validateLabelSelector(selector: LabelSelector | undefined, allowInvalidValues: boolean, path: FieldPath): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels, path.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const reqPath = path.child('matchExpressions').index(i);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(reqPath.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(reqPath.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(reqPath.child('operator'), req.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateQualifiedName(req.key ?? '', reqPath.child('key')));
    if (!allowInvalidValues) {
      values.forEach((value, j) => {
        for (const msg of isValidLabelValue(value)) errs.push(invalid(reqPath.child('values').index(j), value, msg));
      });
    }
  });
  return errs;
}

function hasInvalidLabelValue(selector: LabelSelector | undefined): boolean {
  return (selector?.matchExpressions ?? []).some((req) => (req.values ?? []).some((v) => isValidLabelValue(v).length > 0));
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

/** LabelSelector is a `+structType=atomic` struct: apply replaces it whole. */
const atomicLabelSelector = (): Schema => ({ ...labelSelector(), 'x-kubernetes-map-type': 'atomic' });

export const csiStorageCapacityDefinition = defineResource<CSIStorageCapacity>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema(
    {
      storageClassName: pb(3, string()),
      nodeTopology: pb(2, atomicLabelSelector(), 'optional'),
      capacity: pb(4, quantity(), 'optional'),
      maximumVolumeSize: pb(5, quantity(), 'optional'),
    },
    ['storageClassName'],
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
});
