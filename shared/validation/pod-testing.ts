/** The pod the validation tests start from: one container, defaulted as the server defaults it before validating. */
import { fieldErrorString } from '../api/field.ts';
import { applyPodDefaults } from '../api/pod-defaults.ts';
import type { Container, Pod, PodSpec } from '../api/pod.ts';
import { validatePodCreate } from './pod.ts';

/** A defaulted pod `web` in `default` with the container `app` (nginx), `spec` and `container` laid over them. */
export function pod(spec: PodSpec = {}, container: Container = {}): Pod {
  const p: Pod = { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }], ...spec } };
  applyPodDefaults(p);
  return p;
}

/** What validatePodCreate says of `p`, one `path: Type: detail` line per error. */
export const errors = (p: Pod): string[] => validatePodCreate(p).map(fieldErrorString);
