/** ConfigMap (v1): string and binary data, with keys, total size and the `immutable` flag checked as upstream. */
import { FieldPath, invalid, tooLong, type FieldError } from '../../../shared/api/field.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { boolean, bytes, describe, kindSchema, map, pb, string } from '../../../shared/api/schema.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { decodedSize, maxDataSize, utf8Size, validateDataKeys, validateImmutableData } from './shared-validation.ts';
import { append } from '../../../shared/api/append.ts';

export interface ConfigMap extends KubeObject {
  immutable?: boolean;
  data?: Record<string, string>;
  /** Values are base64 on the wire. */
  binaryData?: Record<string, string>;
}

function validateConfigMap(cm: ConfigMap): FieldError[] {
  const dataPath = FieldPath.root('data');
  const binaryPath = FieldPath.root('binaryData');
  const errors = validateDataKeys(cm.data, dataPath);
  let size = 0;
  for (const [key, value] of Object.entries(cm.data ?? {})) {
    if (cm.binaryData && Object.hasOwn(cm.binaryData, key)) {
      errors.push(invalid(dataPath.key(key), key, 'duplicate of key present in binaryData'));
    }
    size += utf8Size(value);
  }
  append(errors, validateDataKeys(cm.binaryData, binaryPath));
  for (const value of Object.values(cm.binaryData ?? {})) size += decodedSize(value);
  // Upstream reports the size against the whole object: an empty field path.
  if (size > maxDataSize) errors.push(tooLong(FieldPath.root(''), '', maxDataSize));
  return errors;
}

export const configMapDefinition = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  verbs: allVerbs,
  schema: describe(
    kindSchema({
      immutable: pb(4, boolean('When true, data and binaryData can no longer change; only deletion and re-creation replace them.'), 'optional'),
      data: pb(
        2,
        map(string(), 'Configuration entries as UTF-8 text, by key. Keys consist of letters, digits, -, _ and .; a key may not appear in binaryData as well.'),
      ),
      binaryData: pb(
        3,
        map(bytes(), 'Configuration entries as arbitrary bytes (base64 in JSON), by key; keys follow the rules of data and may not repeat its keys.'),
      ),
    }),
    'Non-confidential configuration as key/value pairs, which pods consume as environment variables, arguments or files. At most 1 MiB in all.',
  ),
  strategy: {
    validate: (cm) => validateConfigMap(cm),
    validateUpdate: (cm, old) => [...validateImmutableData(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)],
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'Data',
        type: 'string',
        description:
          "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      },
      ageColumn,
    ],
    cells: (cm, now) => [cm.metadata.name, Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length, age(cm, now)],
  },
});
