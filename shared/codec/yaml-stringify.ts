/**
 * YAML as upstream writes it (sigs.k8s.io/yaml over go-yaml v2): keys sorted, sequences not
 * indented under their key, YAML 1.1 rules (strings that would read as timestamps or booleans are
 * quoted), and a value met twice written twice (Go marshals values: it has no anchors and aliases,
 * which the YAML library writes for an object it meets again). One function, so that answers
 * written on the event loop and on the codec worker (shared/codec/offload) are the same text.
 */
import { stringify } from 'yaml';

const upstreamStyle = { sortMapEntries: true, indentSeq: false, version: '1.1', aliasDuplicateObjects: false } as const;

export function stringifyYaml(value: unknown): string {
  return stringify(value, upstreamStyle);
}
