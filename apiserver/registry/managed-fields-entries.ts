/**
 * What the full recording of managedFields (managed-fields.ts) and the owned-update shortcut
 * (owned-update.ts) share: the metadata nobody owns, and upstream's order of entries.
 */
import type { ManagedFieldsEntry } from '../../shared/api/types.ts';
import { compareStrings } from '../../shared/apply/fieldpath.ts';
import { tryParseTime } from '../../shared/go/time.ts';

/** Metadata fields never owned by anyone: identity and system metadata (upstream's strip set, with apiVersion, kind and metadata itself). */
export const unownedMetadataFields: readonly string[] = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
];

/** Unix seconds of an entry's time; 0 when it has none, NaN when Go would not parse it. */
export function entryTimeSeconds(time: string | undefined): number {
  return time ? (tryParseTime(time)?.seconds ?? Number.NaN) : 0;
}

/** upstream's sort of encoded entries: operation (Apply first), time, manager, API version, subresource. */
export function compareManagedFieldsEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    compareStrings(p.operation ?? '', q.operation ?? '') ||
    entryTimeSeconds(p.time) - entryTimeSeconds(q.time) ||
    compareStrings(p.manager ?? '', q.manager ?? '') ||
    compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
    compareStrings(p.subresource ?? '', q.subresource ?? '')
  );
}
