/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced): the capacity a CSI driver reports for one
 * storage class and topology segment. The inputs of the capacity query (storageClassName and
 * nodeTopology) are immutable; only the reported quantities change.
 */
import { FieldPath, forbidden, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import { parseQuantity } from '../../../shared/api/quantity.ts';
import { describe, kindSchema, labelSelector, pb, quantity, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { isDNS1123Subdomain, isValidLabelValue } from '../../../shared/validation/names.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { nameColumn } from '../../endpoints/table.ts';
import { validateLabels } from '../../../shared/validation/objectmeta.ts';
import { validateImmutableField, validateQualifiedName } from '../core/shared-validation.ts';
import { semanticEqual } from './validation.ts';
import { append } from '../../../shared/api/append.ts';

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
    append(errs, validateQualifiedName(req.key ?? '', reqPath.child('key')));
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

const decimalSuffixes: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const maxInt64 = 2n ** 63n - 1n;

/** a / b for a positive b, rounded away from zero (inf.RoundUp). */
function divideRoundingUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : a < 0n ? q - 1n : q + 1n;
}

/** The suffix of 10^exponent (`k`, `m`, ...), '' when upstream has none for it. */
function decimalSuffix(exponent: number): string {
  return Object.entries(decimalSuffixes).find(([, e]) => e === exponent)?.[0] ?? '';
}

/**
 * A quantity as upstream's Quantity.String() prints it after decoding: the input itself when it is
 * already canonical, else the canonical form (`1536Mi` for `1.5Gi`, `1k` for `1000`, `500m` for `0.5`);
 * the input unchanged when it is no quantity.
 */
export function quantityString(input: string | number): string {
  const text = String(input).trim();
  if (text === '0' || text === '') return text;
  const parts = /^([+-]?)0*(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[-+]?\d*)$/.exec(text);
  if (!parts) return text;
  const [, sign = '', digits = '', denom = '', suffix = ''] = parts;
  const num = digits || '0';
  let format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
  let exponent: number;
  if (Object.hasOwn(decimalSuffixes, suffix)) [format, exponent] = ['DecimalSI', decimalSuffixes[suffix] ?? 0];
  else if (Object.hasOwn(binarySuffixes, suffix)) [format, exponent] = ['BinarySI', binarySuffixes[suffix] ?? 0];
  else if (/^[eE][-+]?\d+$/.test(suffix)) [format, exponent] = ['DecimalExponent', Number(suffix.slice(1))];
  else return text;

  // Upstream keeps the input as its string when its int64 fast path finds it canonical already.
  const shifted = num + denom;
  const binary = format === 'BinarySI';
  const precision = binary ? (denom ? -1 : 15 - num.length - Math.trunc((exponent * 3) / 10) - 1) : 18 - shifted.length;
  const fastScale = (binary ? 0 : exponent) - denom.length;
  if (precision >= 0 && fastScale >= -9 && BigInt(shifted) * (binary ? 2n ** BigInt(exponent) : 1n) <= maxInt64) {
    const canonical = binary
      ? (BigInt(shifted) & 7n) !== 0n
      : fastScale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
    if (canonical) return text;
  }

  // The exact value, unscaled × 10^scale, rounded up to nano units as upstream stores it.
  let unscaled = BigInt(shifted) * (binary ? 2n ** BigInt(exponent) : 1n) * (sign === '-' ? -1n : 1n);
  let scale = fastScale;
  if (scale < -9) {
    unscaled = divideRoundingUp(unscaled, 10n ** BigInt(-9 - scale));
    scale = -9;
  }
  if (unscaled === 0n) return '0';
  const magnitude = unscaled < 0n ? -unscaled : unscaled;
  const atLeast = (n: bigint): boolean => (scale >= 0 ? magnitude * 10n ** BigInt(scale) >= n : magnitude >= n * 10n ** BigInt(-scale));
  if (binary && atLeast(maxInt64 + 1n)) [unscaled, scale] = [unscaled < 0n ? -maxInt64 : maxInt64, 0];

  // Binary form only for whole values of 1024 and more; others print as decimal SI.
  if (binary && atLeast(1024n) && (scale >= 0 || unscaled % 10n ** BigInt(-scale) === 0n)) {
    let mantissa = scale >= 0 ? unscaled * 10n ** BigInt(scale) : unscaled / 10n ** BigInt(-scale);
    let power = 0;
    while (mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      power++;
    }
    return `${mantissa}${Object.entries(binarySuffixes).find(([, e]) => e === power * 10)?.[0] ?? ''}`;
  }
  // Decimal forms: no trailing zeros in the number, and an exponent that is a multiple of 3.
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale++;
  }
  while (scale % 3 !== 0) {
    unscaled *= 10n;
    scale--;
  }
  if (format === 'DecimalExponent') return scale === 0 ? `${unscaled}` : `${unscaled}e${scale}`;
  return `${unscaled}${decimalSuffix(scale)}`;
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
        capacity: pb(4, quantity('Space still available for new volumes of the class on those nodes, as the driver last reported; absent means unknown.'), 'optional'),
        maximumVolumeSize: pb(
          5,
          quantity('Size of the largest volume that can be created there now; absent means the same as capacity.'),
          'optional',
        ),
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
