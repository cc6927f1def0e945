/**
 * `/configz`: the configuration the agent runs with, as component-base's configz serves it, keyed
 * by the name the kubelet registers (`{"kubeletconfig": {...}}`), the value being the
 * KubeletConfiguration converted back to v1beta1 and encoded as Go encodes it: no kind or
 * apiVersion (the converted struct's TypeMeta is empty), fields in upstream's order, durations as
 * Go text (`1m0s`), and Go's omitempty, which drops zero scalars and empty lists and maps but never
 * a struct (so every duration, `0s` included, and every nested struct is there) nor a set pointer
 * (`enableServer: true`, `anonymous.enabled: false`).
 */
import { formatGoDuration } from '../../shared/go/duration.ts';
import { kubeletFields, type FieldSpec, type FieldTable, type KubeletConfiguration } from '../config/fields.ts';

/** Fields that are Go pointers although the table defaults them in defaults.ts rather than by presence. */
const pointerFields = new Set(['podPidsLimit', 'serializeImagePulls']);
/** Fields of component-base's LoggingConfiguration without omitempty. */
const alwaysPresent = new Set(['logging.verbosity']);

function encodeTable(value: Record<string, unknown>, table: FieldTable, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const path = `${prefix}${name}`;
    const encoded = encodeField(value[name], spec, path, pointerFields.has(path) || alwaysPresent.has(path));
    if (encoded !== undefined) out[name] = encoded;
  }
  return out;
}

/** The JSON of one field, or undefined where Go leaves it out. */
function encodeField(value: unknown, spec: FieldSpec, path: string, keepZero: boolean): unknown {
  if (value === null || value === undefined) return undefined;
  switch (spec.kind) {
    case 'struct':
      return encodeTable(value as Record<string, unknown>, spec.fields ?? {}, `${path}.`);
    case 'structs': {
      const items = value as Record<string, unknown>[];
      return items.length ? items.map((item) => encodeTable(item, spec.fields ?? {}, `${path}.`)) : undefined;
    }
    case 'duration':
      return formatGoDuration(value as number);
    case 'quantity':
      return value;
    case 'strings':
      return (value as unknown[]).length ? value : undefined;
    case 'stringMap':
    case 'boolMap':
    case 'stringsMap':
      return Object.keys(value).length ? value : undefined;
    default: {
      const pointer = keepZero || spec.when === 'absent' || spec.nullable === true;
      const zero = value === false || value === 0 || value === '';
      return zero && !pointer ? undefined : value;
    }
  }
}

/** The v1beta1 JSON object of a configuration, as upstream's converted struct encodes. */
export function versionedKubeletConfiguration(config: KubeletConfiguration): Record<string, unknown> {
  return encodeTable(config, kubeletFields, '');
}

/** The body of `/configz`. */
export function configzBody(config: KubeletConfiguration): string {
  return JSON.stringify({ kubeletconfig: versionedKubeletConfiguration(config) });
}
