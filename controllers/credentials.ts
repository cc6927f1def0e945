/**
 * Per-controller identities (--use-service-account-credentials). Upstream's controller manager
 * runs each controller as the service account kube-system/<controller> so that each gets exactly
 * its bootstrap role (system:controller:<controller>) and no controller can do what another may.
 * corral makes those identities as client certificates instead of service account tokens: signed
 * in memory by the kube-apiserver-client signer (the CA the API server trusts for client
 * certificates), with the user and groups a service account token would carry. They are never
 * written to disk and live as long as the process. The manager's own identity (--kubeconfig)
 * keeps leader election, discovery, informers and access reviews, as upstream's does.
 */
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { issueClientCertificate, loadCA, type CertificateAuthority } from '../shared/pki/certificates.ts';
import type { SigningFiles } from './config.ts';

export const serviceAccountNamespace = 'kube-system';

/** The user name and groups of a service account, as the API server's token authenticator gives them. */
export function serviceAccountUser(namespace: string, name: string): { username: string; groups: string[] } {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

export class ServiceAccountCredentials {
  private readonly made = new Map<string, Promise<KubeConfig>>();

  private constructor(
    private readonly base: KubeConfig,
    private readonly ca: CertificateAuthority,
  ) {}

  static async load(base: KubeConfig, files: SigningFiles): Promise<ServiceAccountCredentials> {
    const [certPem, keyPem] = await Promise.all([readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
    return new ServiceAccountCredentials(base, await loadCA(certPem, keyPem));
  }

  /** A kubeconfig for the cluster of the base kubeconfig, authenticating as kube-system/<serviceAccount>. */
  kubeconfigFor(serviceAccount: string): Promise<KubeConfig> {
    let made = this.made.get(serviceAccount);
    if (!made) {
      made = this.make(serviceAccount);
      this.made.set(serviceAccount, made);
    }
    return made;
  }

  private async make(serviceAccount: string): Promise<KubeConfig> {
    const cluster = this.base.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const { username, groups } = serviceAccountUser(serviceAccountNamespace, serviceAccount);
    const leaf = await issueClientCertificate(this.ca, { commonName: username, organizations: groups });
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromClusterAndUser(cluster, {
      name: username,
      certData: Buffer.from(leaf.certPem).toString('base64'),
      keyData: Buffer.from(leaf.keyPem).toString('base64'),
    });
    return kubeconfig;
  }
}
