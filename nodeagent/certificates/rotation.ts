/**
 * Certificate rotation, as client-go's certificate manager does it for the kubelet: the client
 * certificate (rotateCertificates) and the serving certificate (serverTLSBootstrap) are renewed at
 * a deadline drawn between 70 % and 90 % of their lifetime (upstream's jitteryDuration: the
 * renewals of many nodes spread out instead of arriving together), by a new key and a new request
 * signed with the node's current credentials. A missing pair is requested at once. A failed
 * attempt is retried after 2 s, doubling up to 5 minutes; the old pair serves meanwhile.
 */
import type { Logger } from 'pino';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { sleep, type Clock } from '../../shared/client/clock.ts';
import { generatePrivateKeyPem, makeCertificateRequest, requestCertificate, waitForCertificate, type Subject, type SubjectAltNames } from './request.ts';
import type { CertificateStore, StoredPair } from './store.ts';

/** When a pair valid from `notBefore` to `notAfter` is renewed; `random` in [0, 1). */
export function rotationDeadline(notBefore: number, notAfter: number, random: number): number {
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random);
}

export interface RotationOptions {
  store: CertificateStore;
  signerName: string;
  usages: readonly string[];
  /** The subject and names to ask for; null while they are not known yet (a serving certificate before the node has addresses). */
  template: () => { subject: Subject; altNames: SubjectAltNames } | null;
  /** The client to ask with: the node's current credentials. */
  api: () => ApiClient;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  /** Called with each new pair once it is stored. */
  rotated: (pair: StoredPair) => void;
  random?: () => number;
}

export class CertificateRotator {
  constructor(private readonly options: RotationOptions) {}

  /** Runs until the signal aborts; never throws. */
  async run(): Promise<void> {
    const { clock, signal, logger, store } = this.options;
    const random = this.options.random ?? Math.random;
    let failures = 0;
    while (!signal.aborted) {
      const current = store.current();
      if (current) {
        const deadline = rotationDeadline(current.notBefore, current.notAfter, random());
        logger.info(
          { store: store.prefix, expiration: new Date(current.notAfter).toISOString(), deadline: new Date(deadline).toISOString() },
          'certificate rotation deadline',
        );
        await sleep(clock, Math.max(0, deadline - clock.now()), signal);
        if (signal.aborted) return;
      }
      try {
        if (!(await this.rotate())) {
          await sleep(clock, 1_000, signal);
          continue;
        }
        failures = 0;
      } catch (err) {
        const delay = Math.min(300_000, 2_000 * 2 ** failures++);
        logger.error({ store: store.prefix, err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'certificate rotation failed');
        await sleep(clock, delay, signal);
      }
    }
  }

  /** One renewal; false when the template is not known yet. */
  async rotate(): Promise<boolean> {
    const { store, signerName, usages, clock, signal } = this.options;
    const template = this.options.template();
    if (!template) return false;
    const keyPem = generatePrivateKeyPem();
    const requestPem = await makeCertificateRequest(keyPem, template.subject, template.altNames);
    const api = this.options.api();
    const { name, uid } = await requestCertificate(api, { name: '', requestPem, signerName, usages });
    this.options.logger.info({ csr: name, signer: signerName }, 'certificate requested; waiting for it to be issued');
    const certPem = await waitForCertificate(api, name, uid, { clock, signal });
    const pair = store.update(certPem, keyPem, new Date(clock.now()));
    this.options.rotated(pair);
    return true;
  }
}
