/**
 * Client configuration files (kubeconfig, `apiVersion: v1`, `kind: Config`) with one cluster, one user
 * and one context, credentials embedded as base64 `*-data` fields so the file stands alone, or
 * naming files (a node agent's kubeconfig names its rotating certificate file, as the kubelet's does).
 */
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** https URL of the API server. */
  server: string;
  /** PEM bundle of the CA that signed the server's certificate (or caFile). */
  caPem?: string;
  caFile?: string;
  /** Client certificate credentials; give both or neither. */
  clientCertPem?: string;
  clientKeyPem?: string;
  /** Client certificate credentials in files (both may name one file holding both). */
  clientCertFile?: string;
  clientKeyFile?: string;
  /** Bearer token credentials. */
  token?: string;
  clusterName?: string;
  userName?: string;
  contextName?: string;
  /** Default namespace of the context. */
  namespace?: string;
}

/** Renders a kubeconfig as YAML, with the field order kubectl writes. */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  const clusterName = opts.clusterName ?? 'corral';
  const userName = opts.userName ?? 'admin';
  const contextName = opts.contextName ?? 'corral';
  if ((opts.clientCertPem === undefined) !== (opts.clientKeyPem === undefined)) {
    throw new Error('kubeconfig: client certificate and client key must be given together');
  }
  const user: Record<string, string> = {};
  if (opts.clientCertPem !== undefined && opts.clientKeyPem !== undefined) {
    user['client-certificate-data'] = base64(opts.clientCertPem);
    user['client-key-data'] = base64(opts.clientKeyPem);
  }
  if (opts.clientCertFile !== undefined) user['client-certificate'] = opts.clientCertFile;
  if (opts.clientKeyFile !== undefined) user['client-key'] = opts.clientKeyFile;
  if (opts.token !== undefined) user['token'] = opts.token;
  // kubectl's order: alphabetical.
  const cluster: Record<string, string> = {};
  if (opts.caFile !== undefined) cluster['certificate-authority'] = opts.caFile;
  if (opts.caPem !== undefined) cluster['certificate-authority-data'] = base64(opts.caPem);
  cluster['server'] = opts.server;
  const context: Record<string, string> = { cluster: clusterName, user: userName };
  if (opts.namespace !== undefined) context['namespace'] = opts.namespace;
  return stringify(
    {
      apiVersion: 'v1',
      clusters: [{ cluster, name: clusterName }],
      contexts: [{ context, name: contextName }],
      'current-context': contextName,
      kind: 'Config',
      preferences: {},
      users: [{ name: userName, user }],
    },
    { lineWidth: 0 },
  );
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
