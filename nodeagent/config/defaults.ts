/**
 * Upstream's defaulting of a decoded KubeletConfiguration (SetDefaults_KubeletConfiguration,
 * pkg/kubelet/apis/config/v1beta1/defaults.go, 1.32), followed by the conversion to the internal
 * form, where an absent pointer without a default becomes Go's zero value. Runs on a value the
 * schema check has passed (decode.ts), so every present field has its JSON type; durations are
 * still Go's text here and become milliseconds.
 */
import { parseGoDuration } from '../../shared/go/duration.ts';
import { isObject } from '../../shared/api/types.ts';
import { kubeletFields, type Decoded, type FieldSpec, type FieldTable, type KubeletConfiguration } from './fields.ts';

/** Go's zero value of a field of this kind, as the internal configuration holds it. */
function zeroOf(spec: FieldSpec): unknown {
  if (spec.nullable) return null;
  switch (spec.kind) {
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'float64':
    case 'duration':
      return 0;
    case 'string':
      return '';
    case 'quantity':
      return '0';
    case 'strings':
    case 'structs':
      return [];
    case 'stringMap':
    case 'boolMap':
    case 'stringsMap':
      return {};
    case 'struct':
      return fill({}, spec.fields ?? {});
  }
}

function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === 0 || value === '';
}

function copyDefault(value: unknown): unknown {
  if (Array.isArray(value)) return [...(value as unknown[])];
  if (isObject(value)) return { ...value };
  return value;
}

/** One present field in its decoded form. */
function convert(value: unknown, spec: FieldSpec): unknown {
  switch (spec.kind) {
    case 'duration':
      return typeof value === 'string' ? parseGoDuration(value) : value;
    case 'quantity':
      return typeof value === 'number' ? String(value) : value;
    case 'struct':
      return fill(isObject(value) ? value : {}, spec.fields ?? {});
    case 'structs':
      return Array.isArray(value) ? value.map((item: unknown) => fill(isObject(item) ? item : {}, spec.fields ?? {})) : [];
    default:
      return value;
  }
}

/**
 * `raw` decoded with `table`: present fields converted, absent (or, for Go values, zero) fields
 * given their default or their zero value. The table guarantees the shape, which is why the result
 * may be typed from it.
 */
export function fill<T extends FieldTable>(raw: Record<string, unknown>, table: T): Decoded<T> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const present = raw[name];
    const value = present === undefined || present === null ? undefined : convert(present, spec);
    const useDefault = spec.default !== undefined && (value === undefined || (spec.when === 'zero' && isZero(value)));
    out[name] = useDefault ? copyDefault(spec.default) : value === undefined ? zeroOf(spec) : value;
  }
  return out as Decoded<T>;
}

/** A present, non-null field of the raw file. */
const given = (raw: Record<string, unknown>, name: string): unknown => (raw[name] === null ? undefined : raw[name]);

/**
 * A KubeletConfiguration from a decoded v1beta1 object (apiVersion and kind already checked),
 * defaulted as upstream defaults it, in the internal form. `{}` gives upstream's defaults.
 */
export function defaultKubeletConfiguration(raw: Record<string, unknown>): KubeletConfiguration {
  const config = fill(raw, kubeletFields);
  // nodeStatusReportFrequency follows an explicit nodeStatusUpdateFrequency (backward compatibility).
  const update = given(raw, 'nodeStatusUpdateFrequency');
  if (config.nodeStatusReportFrequency === 0) {
    config.nodeStatusReportFrequency = update === undefined || parseGoDuration(String(update)) === 0 ? 5 * 60_000 : config.nodeStatusUpdateFrequency;
  }
  // A nil or negative podPidsLimit is -1: the node allocatable pid limit applies.
  const pids = given(raw, 'podPidsLimit');
  if (typeof pids !== 'number' || pids < 0) config.podPidsLimit = -1;
  // serializeImagePulls defaults to true unless maxParallelImagePulls allows parallel pulls.
  if (given(raw, 'serializeImagePulls') === undefined) {
    config.serializeImagePulls = config.maxParallelImagePulls === null || config.maxParallelImagePulls < 2;
  }
  return config;
}

/**
 * The defaults the kubelet starts from without --config (options.NewKubeletConfiguration):
 * upstream's defaults, then applyLegacyDefaults, which keeps the command line's historical
 * defaults where the file's differ.
 */
export function flagDefaultKubeletConfiguration(): KubeletConfiguration {
  const config = defaultKubeletConfiguration({});
  config.authentication.anonymous.enabled = true; // --anonymous-auth
  config.authentication.webhook.enabled = false; // --authentication-token-webhook
  config.authorization.mode = 'AlwaysAllow'; // --authorization-mode
  config.readOnlyPort = 10255; // --read-only-port
  return config;
}
