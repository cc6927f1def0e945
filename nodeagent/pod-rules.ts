/**
 * The API server's rules for a Pod, applied to static pods (issue 15: "validated with the same
 * code"): a manifest's fields must have the Pod schema's types (as the API server's decoding
 * demands), then the API's defaults, then ValidatePodCreate, all from shared/.
 *
 * The static pod source calls applyDefaults and then validate on each manifest. A manifest whose
 * types are wrong (`containers: "x"`) cannot be defaulted; applyDefaults leaves it untouched and
 * keeps the decoding error for validate to report, so that the manifest is refused with that
 * error instead of a crash of the defaulter.
 */
import { FieldPath, invalid, type FieldError } from '../shared/api/field.ts';
import { podSchema, type Pod } from '../shared/api/pod.ts';
import { applyPodDefaults } from '../shared/api/pod-defaults.ts';
import type { KubeObject } from '../shared/api/types.ts';
import { checkAgainstSchema, SchemaTypeError } from '../shared/codec/schema-check.ts';
import { validatePodCreate } from '../shared/validation/pod.ts';

const schema = podSchema();
const decodeErrors = new WeakMap<KubeObject, string>();

/** True when `pod` has the Pod schema's shape (unknown fields dropped, as decoding drops them). */
function isPod(pod: KubeObject): pod is Pod {
  try {
    checkAgainstSchema(pod, schema, 'Pod');
    return true;
  } catch (err) {
    if (!(err instanceof SchemaTypeError)) throw err;
    decodeErrors.set(pod, err.message);
    return false;
  }
}

export function applyStaticPodApiDefaults(pod: KubeObject): void {
  if (isPod(pod)) applyPodDefaults(pod);
}

export function validateStaticPod(pod: KubeObject): FieldError[] {
  if (!decodeErrors.has(pod) && isPod(pod)) return validatePodCreate(pod);
  return [invalid(FieldPath.root('Pod'), pod.metadata.name ?? '', `the manifest does not decode as a Pod: ${decodeErrors.get(pod) ?? ''}`)];
}
