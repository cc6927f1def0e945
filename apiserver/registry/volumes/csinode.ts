/**
 * CSINode (storage.k8s.io/v1): the CSI drivers registered on one node, written by its node agent.
 * Named after the node (a DNS subdomain, checked generically). A driver entry, once present, may
 * not change; drivers may be added and removed.
 */
import { FieldPath, duplicate, invalid, required, type FieldError } from '../../../shared/api/field.ts';
import { csiNodeSchema, type CSINode, type CSINodeDriver } from '../../../shared/api/csinode.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { validateCSIDriverName } from '../../../shared/validation/csi-driver-name.ts';
import { semanticEqual, validateImmutableField } from '../../../shared/validation/immutable.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import { append } from '../../../shared/api/append.ts';

export type { CSINode, CSINodeDriver };

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

export const csiNodeDefinition = defineResource<CSINode>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  singular: 'csinode',
  namespaced: false,
  verbs: allVerbs,
  deleteReturnsObject: true,
  schema: csiNodeSchema(),
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
