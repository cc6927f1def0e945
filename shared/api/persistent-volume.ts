/**
 * core/v1 PersistentVolumeSpec: a volume's storage (exactly one volume source), capacity, access
 * modes, binding and reclaim policy. storage.k8s.io's VolumeAttachment carries one as the inline
 * volume of a pod migrated to CSI; validation is shared/validation/persistent-volume.ts.
 */
import type { NodeSelector } from './node-selector.ts';
import { persistentVolumeSourceFields, type CSIPersistentVolumeSource } from './persistent-volume-source.ts';
import { atomicArray, describe, embedded, map, named, nodeSelector, object, objectReference, pb, quantity, string, type Schema } from './schema.ts';

/** The fields of a PersistentVolumeSpec that inline validation reads; volume sources are keyed by name. */
export interface PersistentVolumeSpec {
  accessModes?: string[];
  capacity?: Record<string, string | number>;
  claimRef?: Record<string, unknown>;
  csi?: CSIPersistentVolumeSource;
  hostPath?: { path?: string };
  nodeAffinity?: { required?: NodeSelector };
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  volumeMode?: string;
  [field: string]: unknown;
}

/** core/v1 PersistentVolumeSpec with every volume source. */
export const persistentVolumeSpec = (): Schema =>
  named(
    'io.k8s.api.core.v1.PersistentVolumeSpec',
    'A persistent volume: its storage (exactly one volume source), capacity, access modes and what happens to it after release.',
    object({
      capacity: pb(1, map(quantity(), 'Size of the volume, as the storage resource.')),
      ...embedded(2, persistentVolumeSourceFields()),
      accessModes: pb(3, describe(atomicArray(string()), 'How the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.')),
      claimRef: pb(
        4,
        describe(
          { ...objectReference(), 'x-kubernetes-map-type': 'granular' },
          'The claim the volume is bound to; set by the binder, or in advance to reserve it.',
        ),
        'optional',
      ),
      persistentVolumeReclaimPolicy: pb(5, string('What happens to the volume when its claim is deleted: Retain, Delete or Recycle (deprecated).')),
      storageClassName: pb(6, string('Storage class the volume belongs to; only claims of that class bind it. Empty for no class.')),
      mountOptions: pb(7, describe(atomicArray(string()), 'Mount options applied when the volume is mounted; not validated.')),
      volumeMode: pb(8, string('Filesystem (the default) or Block (a raw block device).'), 'optional'),
      nodeAffinity: pb(
        9,
        describe(
          named(
            'io.k8s.api.core.v1.VolumeNodeAffinity',
            'The nodes a volume can be used from.',
            object({ required: pb(1, describe(nodeSelector(), 'Nodes the volume is reachable from; pods using it are scheduled there.'), 'optional') }),
          ),
          'The nodes the volume can be used from.',
        ),
        'optional',
      ),
      volumeAttributesClassName: pb(
        10,
        string('VolumeAttributesClass the volume belongs to, which sets its mutable attributes. Beta, off by default.'),
        'optional',
      ),
    }),
  );
