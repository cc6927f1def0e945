/**
 * Bootstrap tokens as Secrets (spec 02 "Bootstrap tokens", upstream's k8s.io/cluster-bootstrap):
 * Secrets of type `bootstrap.kubernetes.io/token` in kube-system named `bootstrap-token-<id>`.
 * The API server authenticates with them, the token cleaner expires them and the bootstrap signer
 * signs cluster-info with them; all three read a token Secret through this module.
 */
import type { KubeObject } from './types.ts';
import { GoTimeParseError, parseGoTime } from '../go/time.ts';

export const bootstrapTokenSecretType = 'bootstrap.kubernetes.io/token';
export const bootstrapTokenSecretPrefix = 'bootstrap-token-';

/** Where token Secrets live (upstream's TokenSecretNamespace default, api.NamespaceSystem). */
export const tokenSecretNamespace = 'kube-system';

/** The Secret's keys (k8s.io/cluster-bootstrap/token/api). */
export const tokenKeys = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  usageSigning: 'usage-bootstrap-signing',
  authExtraGroups: 'auth-extra-groups',
} as const;

/** A value of `data` (base64 on the wire), decoded; '' when absent or not a string (upstream's GetData). */
export function tokenData(secret: KubeObject, key: string): string {
  const data = secret['data'];
  const value: unknown = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

export type Expiration =
  /** No `expiration`: the token never expires. */
  | { state: 'none' }
  | { state: 'valid'; expiration: string; remainingMs: number }
  | { state: 'expired'; expiration: string }
  /** Unparsable: upstream treats it as expired; `error` is Go's time.Parse message. */
  | { state: 'malformed'; expiration: string; error: string };

/** Where the token stands at `nowMs` (upstream's GetExpiration, with the malformed case told apart). */
export function expirationOf(secret: KubeObject, nowMs: number): Expiration {
  const expiration = tokenData(secret, tokenKeys.expiration);
  if (!expiration) return { state: 'none' };
  let atMs: number;
  try {
    const instant = parseGoTime(expiration, 'Time');
    atMs = instant.seconds * 1000 + instant.nanos / 1e6;
  } catch (err) {
    if (!(err instanceof GoTimeParseError)) throw err;
    return { state: 'malformed', expiration, error: err.message };
  }
  const remainingMs = atMs - nowMs;
  return remainingMs <= 0 ? { state: 'expired', expiration } : { state: 'valid', expiration, remainingMs };
}

const secretNamePattern = new RegExp(`^${bootstrapTokenSecretPrefix}([a-z0-9]{6})$`);

/** The token id in a Secret name `bootstrap-token-<id>` (six of [a-z0-9]), or undefined. */
export function tokenIdOfName(name: string): string | undefined {
  return secretNamePattern.exec(name)?.[1];
}

/** The cluster-info ConfigMap of bootstrap token discovery: kubeadm creates it, the bootstrap signer signs it. */
export const clusterInfo = { namespace: 'kube-public', name: 'cluster-info', kubeconfigKey: 'kubeconfig' } as const;
