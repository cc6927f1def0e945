/**
 * The serving certificate of serverTLSBootstrap: requested from `kubernetes.io/kubelet-serving`
 * for `system:node:<name>` in `system:nodes`, with the node's addresses as names (hostnames as DNS
 * names, IPs as IP addresses, as the kubelet asks), kept in `<cert-dir>/kubelet-server-current.pem`
 * and renewed by the rotator. Until the Node has addresses nothing is asked; until a certificate
 * is issued (an administrator or an approver must approve serving requests: the controller
 * manager's approver does not) the server has none and its handshakes fail, as upstream's do.
 */
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import type { ApiClient } from '../../shared/client/api-client.ts';
import type { Clock } from '../../shared/client/clock.ts';
import type { CertificateAndKey } from '../../shared/pki/certificates.ts';
import { nodeCertificateSubject } from '../../shared/api/node-identity.ts';
import type { ServingCertificateSource } from '../server/serving-certificate.ts';
import { kubeletServingSigner } from './request.ts';
import { CertificateRotator } from './rotation.ts';
import { CertificateStore } from './store.ts';

/** The usages of a serving request with an ECDSA key (no key encipherment, as upstream's kubelet asks). */
export const servingUsages = ['digital signature', 'server auth'];

export interface BootstrappedServingOptions {
  certDir: string;
  nodeName: string;
  /** The Node's addresses (hostnames and IPs); empty until it has them. */
  addresses: () => string[];
  api: () => ApiClient;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}

export class BootstrappedServingCertificate implements ServingCertificateSource {
  private readonly store: CertificateStore;
  private readonly listeners = new Set<() => void>();
  private pair: CertificateAndKey | null;
  private readonly running: Promise<void>;

  constructor(options: BootstrappedServingOptions) {
    this.store = new CertificateStore(options.certDir, 'kubelet-server');
    const stored = this.store.current();
    this.pair = stored && { certPem: stored.certPem, keyPem: stored.keyPem };
    const rotator = new CertificateRotator({
      store: this.store,
      signerName: kubeletServingSigner,
      usages: servingUsages,
      template: () => {
        const addresses = options.addresses();
        if (addresses.length === 0) return null;
        return {
          subject: nodeCertificateSubject(options.nodeName),
          altNames: { dnsNames: addresses.filter((a) => isIP(a) === 0), ipAddresses: addresses.filter((a) => isIP(a) !== 0) },
        };
      },
      api: options.api,
      clock: options.clock,
      logger: options.logger,
      signal: options.signal,
      rotated: (pair) => {
        this.pair = { certPem: pair.certPem, keyPem: pair.keyPem };
        for (const listener of this.listeners) listener();
      },
    });
    this.running = rotator.run();
  }

  current(): CertificateAndKey | null {
    return this.pair;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The rotator stops with the agent's signal; this only drops the listeners. */
  stop(): void {
    this.listeners.clear();
  }

  /** Resolves once the rotator has stopped. */
  stopped(): Promise<void> {
    return this.running;
  }
}
