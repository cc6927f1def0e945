/**
 * Decodes a component configuration file (YAML or JSON) as upstream's strict codec does
 * (apimachinery's json serializer with EnableStrict): the type meta is read first, then the kind
 * must be registered for that version, then the body is decoded into the kind's Go struct. Syntax
 * and type errors fail the decoding; unknown and duplicate fields are the strict decoding error,
 * which the caller may reject (CredentialProviderConfig) or tolerate (KubeletConfiguration v1beta1
 * falls back to lenient decoding).
 */
import { parseBody } from '../../shared/codec/body.ts';
import { isObject } from '../../shared/api/types.ts';
import { parseGoDuration } from '../../shared/go/duration.ts';
import { checkAgainstSchema, jsonType, SchemaTypeError } from '../../shared/codec/schema-check.ts';
import type { FieldTable } from './fields.ts';
import { kindSchema } from './schema.ts';

/** A kind of a configuration group: where upstream registers it and its fields. */
export interface ConfigKind {
  kind: string;
  /** Every `group/version` the kind is registered for. */
  apiVersions: readonly string[];
  /** The scheme's name in upstream's "not registered" errors (the file and line that built it). */
  schemeName: string;
  fields: FieldTable;
}

export interface DecodedConfig {
  /** The object, unknown fields removed, durations still Go's text. */
  value: Record<string, unknown>;
  apiVersion: string;
  /** `strict decoding error: unknown field "x", ...`, or null when the file is strictly valid. */
  strictError: string | null;
}

/** A decoding failure; its message is upstream's. */
export class ConfigDecodeError extends Error {}

const typeMetaStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Every duration field of `value` must parse as metav1.Duration's UnmarshalJSON parses it. */
function checkDurations(value: Record<string, unknown>, table: FieldTable): void {
  for (const [name, spec] of Object.entries(table)) {
    const present = value[name];
    if (present === undefined || present === null) continue;
    if (spec.kind === 'duration' && typeof present === 'string') {
      try {
        parseGoDuration(present);
      } catch (err) {
        throw new ConfigDecodeError(err instanceof Error ? err.message : String(err));
      }
    } else if (spec.kind === 'struct' && isObject(present)) checkDurations(present, spec.fields ?? {});
    else if (spec.kind === 'structs' && Array.isArray(present)) {
      for (const item of present as unknown[]) if (isObject(item)) checkDurations(item, spec.fields ?? {});
    }
  }
}

/** The document parsed, with its duplicated keys in upstream's strict wording. */
function parse(text: string): { value: unknown; duplicates: string[] } {
  // The codec factory's recognizer: a document starting with `{` is JSON, anything else YAML.
  const format = text.trimStart().startsWith('{') ? 'json' : 'yaml';
  let parsed: { value: unknown; duplicates: string[] };
  try {
    parsed = parseBody(text, format, true);
  } catch (err) {
    throw new ConfigDecodeError(err instanceof Error ? err.message : String(err));
  }
  // sigs.k8s.io/yaml's strict conversion reports every repeated key in one error.
  const duplicates = format === 'yaml' && parsed.duplicates.length ? [`yaml: unmarshal errors:\n  ${parsed.duplicates.join('\n  ')}`] : parsed.duplicates;
  return { value: parsed.value, duplicates };
}

/** Decodes `text` as `kind`; throws ConfigDecodeError with upstream's message for anything but strict errors. */
export function decodeConfig(text: string, kind: ConfigKind): DecodedConfig {
  const { value: parsed, duplicates } = parse(text);
  const value = parsed === null ? {} : parsed;
  if (!isObject(value))
    throw new ConfigDecodeError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(value)} into Go value of type ${typeMetaStruct}`,
    );
  for (const field of ['apiVersion', 'kind'] as const) {
    const found = value[field];
    if (found === undefined || found === null || typeof found === 'string') continue;
    throw new ConfigDecodeError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(found)} into Go struct field .${field} of type string`,
    );
  }
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const kindName = typeof value.kind === 'string' ? value.kind : '';
  if (kindName === '') throw new ConfigDecodeError(`Object 'Kind' is missing in '${text}'`);
  if (apiVersion === '') throw new ConfigDecodeError(`Object 'apiVersion' is missing in '${text}'`);
  if (kindName !== kind.kind || !kind.apiVersions.includes(apiVersion)) {
    throw new ConfigDecodeError(`no kind "${kindName}" is registered for version "${apiVersion}" in scheme "${kind.schemeName}"`);
  }
  let unknown: string[];
  try {
    unknown = checkAgainstSchema(value, kindSchema(kind.fields), kind.kind);
  } catch (err) {
    if (err instanceof SchemaTypeError) throw new ConfigDecodeError(err.message);
    throw err;
  }
  checkDurations(value, kind.fields);
  const yamlErrors = duplicates.filter((d) => d.startsWith('yaml:'));
  const jsonDuplicates = duplicates.filter((d) => !d.startsWith('yaml:'));
  const strict = [...yamlErrors, ...unknown.map((f) => `unknown field "${f}"`), ...jsonDuplicates];
  return { value, apiVersion, strictError: strict.length ? `strict decoding error: ${strict.join(', ')}` : null };
}
