import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { FieldPath, fieldErrorString } from '../../../../shared/api/field.ts';
import { x509 } from '../../../../shared/go/x509.ts';
import { createCA, generateKeyPair } from '../../../../shared/pki/certificates.ts';
import type { RequestContext } from '../../definition.ts';
import { csrDefinition } from './csr.ts';
import type { CertificateSigningRequest, CertificateSigningRequestSpec } from '../../../../shared/api/certificate-signing-request.ts';
import { validateSignerName } from './signer-name.ts';

const ctx: RequestContext = {
  user: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
  now: new Date('2024-05-06T07:08:09.500Z'),
};
const now = '2024-05-06T07:08:09Z';
const strategy = csrDefinition.strategy;
const approval = csrDefinition.subresources?.approval;
const status = csrDefinition.subresources?.status;
const messages = (errs: ReturnType<typeof strategy.validate>): string[] => errs.map(fieldErrorString);
const b64 = (text: string): string => Buffer.from(text).toString('base64');

type KeyAlgorithm = 'ECDSA' | 'RSA' | 'RSA-PSS' | 'Ed25519';

async function generateKeys(algorithm: KeyAlgorithm): Promise<webcrypto.CryptoKeyPair> {
  const rsa = { modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  switch (algorithm) {
    case 'ECDSA':
      return generateKeyPair();
    case 'RSA':
      return webcrypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', ...rsa }, false, ['sign', 'verify']);
    case 'RSA-PSS':
      return webcrypto.subtle.generateKey({ name: 'RSA-PSS', ...rsa }, false, ['sign', 'verify']);
    case 'Ed25519':
      return (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  }
}

async function csrPem(algorithm: KeyAlgorithm): Promise<string> {
  const signingAlgorithm = {
    ECDSA: { name: 'ECDSA', hash: 'SHA-256' },
    RSA: { name: 'RSASSA-PKCS1-v1_5' },
    'RSA-PSS': { name: 'RSA-PSS', saltLength: 32 },
    Ed25519: { name: 'Ed25519' },
  }[algorithm];
  const req = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice, O=dev', keys: await generateKeys(algorithm), signingAlgorithm });
  return req.toString('pem');
}

let ecRequest = '';
let rsaRequest = '';
let edRequest = '';
let pssRequest = '';
let certificatePem = '';

before(async () => {
  ecRequest = await csrPem('ECDSA');
  rsaRequest = await csrPem('RSA');
  edRequest = await csrPem('Ed25519');
  pssRequest = await csrPem('RSA-PSS');
  certificatePem = (await createCA()).certPem;
});

function csr(spec: CertificateSigningRequestSpec, extra: Partial<CertificateSigningRequest> = {}): CertificateSigningRequest {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'alice' }, spec, ...extra };
}

const validSpec = (): CertificateSigningRequestSpec => ({
  request: b64(ecRequest),
  signerName: 'kubernetes.io/kube-apiserver-client',
  usages: ['client auth'],
});

function createdCSR(spec: CertificateSigningRequestSpec = validSpec()): CertificateSigningRequest {
  const obj = csr(spec);
  strategy.prepareForCreate?.(obj, ctx);
  return obj;
}

describe('CertificateSigningRequest', () => {
  it('is cluster scoped, short-named csr, with path-segment names and a signerName field selector', () => {
    assert.equal(csrDefinition.group, 'certificates.k8s.io');
    assert.deepEqual(csrDefinition.shortNames, ['csr']);
    assert.deepEqual(csrDefinition.nameRule?.('a/b', false), ["may not contain '/'"]);
    assert.equal(csrDefinition.fieldSelectors?.['spec.signerName']?.(createdCSR()), 'kubernetes.io/kube-apiserver-client');
    assert.deepEqual(approval?.verbs, ['get', 'patch', 'update']);
    assert.deepEqual(status?.verbs, ['get', 'update', 'patch']);
    const schema = csrDefinition.schema.properties;
    assert.deepEqual(schema?.spec?.required, ['request', 'signerName']);
    assert.deepEqual(
      { ...schema?.spec?.properties?.request, description: undefined },
      { type: 'string', format: 'byte', 'x-kubernetes-list-type': 'atomic', 'x-corral-protobuf': { field: 1 }, description: undefined },
    );
    assert.deepEqual(schema?.spec?.properties?.expirationSeconds?.['x-corral-protobuf'], { field: 8, optional: true });
    assert.equal(schema?.spec?.properties?.usages?.['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(schema?.status?.properties?.conditions?.['x-kubernetes-list-map-keys'], ['type']);
    assert.equal(schema?.status?.properties?.certificate?.format, 'byte');
  });

  it('records the requesting user, whatever the client sent, and clears status', () => {
    const obj = csr(
      { ...validSpec(), username: 'mallory', groups: ['system:masters'], uid: 'x' },
      {
        status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(certificatePem) },
      },
    );
    strategy.prepareForCreate?.(obj, ctx);
    assert.equal(obj.spec?.username, 'alice');
    assert.equal(obj.spec?.uid, 'u-1');
    assert.deepEqual(obj.spec?.groups, ['dev', 'system:authenticated']);
    assert.deepEqual(obj.spec?.extra, { scopes: ['a'] });
    assert.deepEqual(obj.status, {});

    const anonymous = csr(validSpec());
    strategy.prepareForCreate?.(anonymous, { user: { username: 'bob', groups: [] }, now: ctx.now });
    assert.deepEqual(Object.keys(anonymous.spec ?? {}).sort(), ['request', 'signerName', 'usages', 'username']);
  });

  it('accepts ECDSA, RSA (PKCS #1 and PSS) and Ed25519 requests with valid signatures', () => {
    for (const pem of [ecRequest, rsaRequest, pssRequest, edRequest]) {
      assert.deepEqual(strategy.validate(createdCSR({ ...validSpec(), request: b64(pem) }), ctx), []);
    }
  });

  it('rejects requests that are not a signed PEM CERTIFICATE REQUEST', () => {
    for (const request of [b64('not pem'), b64(certificatePem), '']) {
      assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), request }), ctx)), [
        `spec.request: Invalid value: ${JSON.stringify(request)}: PEM block type must be CERTIFICATE REQUEST`,
      ]);
    }
    const der = Buffer.from(ecRequest.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    const tampered = Buffer.from(der);
    tampered[40] = (tampered[40] ?? 0) ^ 0xff;
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${tampered.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), request: b64(pem) }), ctx)), [
      `spec.request: Invalid value: ${JSON.stringify(b64(pem))}: x509: ECDSA verification failure`,
    ]);
    const truncated = `-----BEGIN CERTIFICATE REQUEST-----\n${der.subarray(0, 50).toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.match(messages(strategy.validate(createdCSR({ ...validSpec(), request: b64(truncated) }), ctx))[0] ?? '', /: asn1: syntax error: data truncated$/);
  });

  it('requires known, distinct usages', () => {
    assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), usages: [] }), ctx)), ['spec.usages: Required value']);
    const errs = messages(strategy.validate(createdCSR({ ...validSpec(), usages: ['client auth', 'teleport', 'client auth'] }), ctx));
    assert.deepEqual(errs, [
      'spec.usages[1]: Unsupported value: "teleport": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
      'spec.usages[2]: Duplicate value: "client auth"',
    ]);
  });

  it('requires a signer name of the form domain/path and refuses the legacy signer', () => {
    assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), signerName: '' }), ctx)), ['spec.signerName: Required value']);
    assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), signerName: 'kubernetes.io/legacy-unknown' }), ctx)), [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
    const path = FieldPath.root('spec').child('signerName');
    assert.deepEqual(validateSignerName(path, 'example.com/a/b').map(fieldErrorString), [
      'spec.signerName: Invalid value: "example.com/a/b": must be a fully qualified domain and path of the form \'example.com/signer-name\'',
    ]);
    assert.deepEqual(validateSignerName(path, 'localhost/signer').map(fieldErrorString), [
      'spec.signerName: Invalid value: "localhost": should be a domain with at least two segments separated by dots',
    ]);
    assert.deepEqual(validateSignerName(path, 'Example.com/Signer').map(fieldErrorString), [
      "spec.signerName: Invalid value: \"Example.com\": validating label \"Example\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      "spec.signerName: Invalid value: \"Signer\": validating label \"Signer\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    assert.deepEqual(validateSignerName(path, `${domain}/${'e'.repeat(253)}.${'f'.repeat(64)}`).map(fieldErrorString), [
      'spec.signerName: Too long: may not be more than 571 bytes',
    ]);
  });

  it('requires expirationSeconds of at least 600', () => {
    assert.deepEqual(messages(strategy.validate(createdCSR({ ...validSpec(), expirationSeconds: 599 }), ctx)), [
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    assert.deepEqual(strategy.validate(createdCSR({ ...validSpec(), expirationSeconds: 600 }), ctx), []);
  });

  it('keeps spec and status on a main-resource update', () => {
    const old = createdCSR();
    const update = csr({ ...validSpec(), usages: ['server auth'] }, { status: { conditions: [{ type: 'Approved', status: 'True' }] } });
    update.metadata.labels = { a: 'b' };
    strategy.prepareForUpdate?.(update, old, ctx);
    assert.deepEqual(update.spec, old.spec);
    assert.deepEqual(update.status, {});
    assert.deepEqual(update.metadata.labels, { a: 'b' });
    assert.deepEqual(strategy.validateUpdate?.(update, old, ctx), []);
  });

  describe('approval', () => {
    function approve(old: CertificateSigningRequest, conditions: CertificateSigningRequest['status']): CertificateSigningRequest {
      const update = csr({ ...validSpec(), usages: ['server auth'] }, { status: structuredClone(conditions) });
      approval?.prepareForUpdate(update, old, ctx);
      return update;
    }

    it('sets the conditions only, stamping their times', () => {
      const old = createdCSR();
      const update = approve(old, { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }], certificate: b64(certificatePem) });
      assert.deepEqual(update.spec, old.spec);
      assert.deepEqual(update.status, {
        conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', lastUpdateTime: now, lastTransitionTime: now }],
      });
      assert.deepEqual(approval?.validateUpdate(update, old, ctx), []);
    });

    it('keeps the transition time of an unchanged condition', () => {
      const old = createdCSR();
      old.status = { conditions: [{ type: 'Failed', status: 'True', lastUpdateTime: '2020-01-01T00:00:00Z', lastTransitionTime: '2020-01-01T00:00:00Z' }] };
      const update = approve(old, {
        conditions: [
          { type: 'Failed', status: 'True' },
          { type: 'Approved', status: 'True' },
        ],
      });
      assert.deepEqual(update.status?.conditions?.[0], { type: 'Failed', status: 'True', lastUpdateTime: now, lastTransitionTime: '2020-01-01T00:00:00Z' });
    });

    it('rejects conflicting, duplicate, removed and malformed conditions', () => {
      const old = createdCSR();
      const both = approve(old, {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      });
      assert.deepEqual(messages(approval?.validateUpdate(both, old, ctx) ?? []), [
        'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      ]);
      const dup = approve(old, {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Approved', status: 'True' },
        ],
      });
      assert.deepEqual(messages(approval?.validateUpdate(dup, old, ctx) ?? []), ['status.conditions[1].type: Duplicate value: "Approved"']);
      const malformed = approve(old, {
        conditions: [
          { type: '', status: '' },
          { type: 'Approved', status: 'False' },
          { type: 'Custom', status: 'Maybe' },
        ],
      });
      assert.deepEqual(messages(approval?.validateUpdate(malformed, old, ctx) ?? []), [
        'status.conditions[0].type: Required value',
        'status.conditions[0].status: Required value',
        'status.conditions[1].status: Unsupported value: "False": supported values: "True"',
        'status.conditions[2].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      ]);

      const approved = approve(old, { conditions: [{ type: 'Approved', status: 'True' }] });
      const removal = approve(approved, { conditions: [] });
      assert.deepEqual(messages(approval?.validateUpdate(removal, approved, ctx) ?? []), [
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
      ]);
    });

    it('tolerates problems the stored object already has', () => {
      const old = createdCSR();
      old.status = {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      };
      const update = approve(old, {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
          { type: 'Failed', status: 'True' },
        ],
      });
      assert.deepEqual(approval?.validateUpdate(update, old, ctx), []);
    });
  });

  describe('status', () => {
    function writeStatus(old: CertificateSigningRequest, newStatus: CertificateSigningRequest['status']): CertificateSigningRequest {
      const update = csr({ ...validSpec(), signerName: 'example.com/other' }, { status: structuredClone(newStatus) });
      status?.prepareForUpdate(update, old, ctx);
      return update;
    }

    function approvedCSR(): CertificateSigningRequest {
      const obj = createdCSR();
      obj.status = {
        conditions: [{ type: 'Approved', status: 'True', reason: 'r', lastUpdateTime: '2020-01-01T00:00:00Z', lastTransitionTime: '2020-01-01T00:00:00Z' }],
      };
      return obj;
    }

    it('issues a certificate once, keeping spec and approval conditions', () => {
      const old = approvedCSR();
      const update = writeStatus(old, { conditions: [{ type: 'Approved', status: 'True', reason: 'edited' }], certificate: b64(certificatePem) });
      assert.deepEqual(update.spec, old.spec);
      assert.deepEqual(update.status?.conditions, old.status?.conditions);
      assert.deepEqual(status?.validateUpdate(update, old, ctx), []);

      const reissue = writeStatus(update, { conditions: update.status?.conditions ?? [], certificate: b64(`${certificatePem}\n${certificatePem}`) });
      assert.deepEqual(messages(status?.validateUpdate(reissue, update, ctx) ?? []), [
        'status.certificate: Forbidden: updates may not modify existing certificate content',
      ]);
    });

    it('accepts only header-less CERTIFICATE PEM blocks as the certificate', () => {
      const old = approvedCSR();
      const check = (text: string): string[] => {
        const update = writeStatus(old, { conditions: old.status?.conditions ?? [], certificate: b64(text) });
        return messages(status?.validateUpdate(update, old, ctx) ?? []);
      };
      assert.deepEqual(check(`leading text\n${certificatePem}\ntrailing text\n`), []);
      // As for Go's PEM decoder, an END line must end the line.
      assert.deepEqual(check(`${certificatePem}${certificatePem}`), [
        'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
      ]);
      assert.deepEqual(check('no pem here'), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
      assert.deepEqual(check(ecRequest), [
        'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"',
      ]);
      assert.deepEqual(check(certificatePem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n')), [
        'status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted',
      ]);
      assert.deepEqual(check('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), [
        'status.certificate: Invalid value: "<certificate data>": x509: malformed certificate',
      ]);
      assert.deepEqual(check('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'), [
        'status.certificate: Invalid value: "<certificate data>": found CERTIFICATE PEM block containing 0 certificates',
      ]);
    });

    it('cannot add or remove approval conditions', () => {
      const old = createdCSR();
      const added = writeStatus(old, { conditions: [{ type: 'Approved', status: 'True' }] });
      assert.deepEqual(messages(status?.validateUpdate(added, old, ctx) ?? []), [
        'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
      ]);
      const approved = approvedCSR();
      const removed = writeStatus(approved, { conditions: [{ type: 'Failed', status: 'True' }] });
      assert.deepEqual(messages(status?.validateUpdate(removed, approved, ctx) ?? []), [
        'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
      ]);
      assert.equal(removed.status?.conditions?.[0]?.lastTransitionTime, now);
    });
  });
});
