import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { describe, it } from 'node:test';
import { isStatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { x509 } from '../../../shared/go/x509.ts';
import { allow, noOpinion, type Authorizer } from '../../authorization/authorizer.ts';
import { csrDefinition } from '../../registry/certificates/csr/csr.ts';
import type { ResourceDefinition } from '../../registry/definition.ts';
import type { AdmissionAttributes, Operation, ValidatingPlugin } from '../admission.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './plugins.ts';

const alice = { username: 'alice', groups: ['system:authenticated'] };
const definition: ResourceDefinition = csrDefinition;

async function requestPem(subject: string): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: algorithm })).toString('pem');
}

const csr = (signerName: string, request = '', status: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'req' },
  spec: { signerName, request: Buffer.from(request).toString('base64'), usages: ['client auth'] },
  status,
});

function attributes(operation: Operation, subresource: string, object: KubeObject, oldObject?: KubeObject): AdmissionAttributes {
  return {
    operation,
    definition,
    subresource,
    namespace: '',
    name: 'req',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    context: { user: alice, now: new Date() },
  };
}

/** Allows exactly the (verb, signers name) pairs listed as `verb name`. */
const allowing = (...granted: string[]): Authorizer => ({
  authorize: (_u, a) => (a.resource === 'signers' && a.apiGroup === 'certificates.k8s.io' && granted.includes(`${a.verb} ${a.name}`) ? allow : noOpinion),
});

async function outcome(plugin: ValidatingPlugin, a: AdmissionAttributes): Promise<string> {
  try {
    await plugin.validate(a);
    return 'admitted';
  } catch (err) {
    assert.ok(isStatusError(err, 'Forbidden'));
    return err.status.message ?? '';
  }
}

describe('the certificate admission plugins', () => {
  it('CertificateApproval needs approve on the signer or its domain', async () => {
    const request = attributes('UPDATE', 'approval', csr('example.com/my-signer'), csr('example.com/my-signer'));
    assert.equal(
      await outcome(certificateApproval(allowing()), request),
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/my-signer"',
    );
    assert.equal(await outcome(certificateApproval(allowing('approve example.com/my-signer')), request), 'admitted');
    assert.equal(await outcome(certificateApproval(allowing('approve example.com/*')), request), 'admitted');
    assert.match(await outcome(certificateApproval(allowing('sign example.com/my-signer')), request), /not permitted to approve/, 'sign is not approve');
    assert.equal(
      await outcome(certificateApproval(allowing()), attributes('UPDATE', 'status', csr('example.com/my-signer'), csr('example.com/my-signer'))),
      'admitted',
      'only approval',
    );
  });

  it('CertificateSigning needs sign when the certificate or conditions change', async () => {
    const old = csr('example.com/s');
    const signed = csr('example.com/s', '', { certificate: 'Y2VydA==' });
    assert.match(
      await outcome(certificateSigning(allowing()), attributes('UPDATE', 'status', signed, old)),
      /user not permitted to sign requests with signerName "example.com\/s"$/,
    );
    assert.equal(await outcome(certificateSigning(allowing('sign example.com/s')), attributes('UPDATE', 'status', signed, old)), 'admitted');
    assert.equal(await outcome(certificateSigning(allowing()), attributes('UPDATE', 'status', old, old)), 'admitted', 'nothing signed');
  });

  it('CertificateSubjectRestriction refuses system:masters for kube-apiserver-client only', async () => {
    const masters = await requestPem('CN=mallory, O=system:masters');
    const plain = await requestPem('CN=alice, O=dev');
    const plugin = certificateSubjectRestriction();
    assert.equal(
      await outcome(plugin, attributes('CREATE', '', csr('kubernetes.io/kube-apiserver-client', masters))),
      'certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    assert.equal(await outcome(plugin, attributes('CREATE', '', csr('kubernetes.io/kube-apiserver-client', plain))), 'admitted');
    assert.equal(await outcome(plugin, attributes('CREATE', '', csr('example.com/other', masters))), 'admitted');
  });
});
