import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { UserInfo } from '../registry/definition.ts';
import { createCA, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from '../../shared/pki/certificates.ts';
import {
  clientCertificateOf,
  createAuthenticator,
  EXTRA_SPACE_TOKEN_WARNING,
  type AuthenticationRequest,
  type ClientCertificate,
  type TokenAuthenticator,
} from './authenticate.ts';

const alice: UserInfo = { username: 'alice', uid: 'uid-a', groups: ['devs'] };
const tokens = new Map<string, UserInfo>([
  ['good-token', alice],
  ['grouped', { username: 'svc', uid: 'u2', groups: ['system:authenticated', 'x'] }],
]);

const adminCert: ClientCertificate = { verified: true, commonName: 'kubernetes-admin', organizations: ['system:masters'], extKeyUsages: ['1.3.6.1.5.5.7.3.2'] };
const anonymousUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

async function run(req: AuthenticationRequest, opts: { anonymous?: boolean; tokenAuthenticators?: TokenAuthenticator[]; noTokens?: boolean } = {}) {
  const authenticator = createAuthenticator({
    tokens: opts.noTokens ? undefined : tokens,
    anonymous: opts.anonymous ?? true,
    tokenAuthenticators: opts.tokenAuthenticators,
  });
  return authenticator.authenticate(req);
}

describe('createAuthenticator', () => {
  it('a verified client certificate: CN is the user, O the groups, plus system:authenticated', async () => {
    assert.deepEqual(await run({ clientCertificate: adminCert }), {
      user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      method: 'x509',
      warnings: [],
    });
  });

  it('the certificate is tried before the token, so an invalid token beside it does not matter', async () => {
    const result = await run({ clientCertificate: adminCert, authorization: 'Bearer wrong' });
    assert.equal(result.user?.username, 'kubernetes-admin');
  });

  it('a certificate without CN authenticates nobody and falls through', async () => {
    const result = await run({ clientCertificate: { ...adminCert, commonName: '' } });
    assert.deepEqual(result.user, anonymousUser);
    const viaToken = await run({ clientCertificate: { ...adminCert, commonName: '' }, authorization: 'Bearer good-token' });
    assert.equal(viaToken.user?.username, 'alice');
  });

  it('an unverified certificate is an error, never anonymous', async () => {
    const result = await run({ clientCertificate: { ...adminCert, verified: false, verificationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } });
    assert.deepEqual(result, { user: null, reason: 'verifying certificate failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE', warnings: [] });
  });

  it('an unverified certificate with a valid token authenticates by the token', async () => {
    const result = await run({ clientCertificate: { ...adminCert, verified: false }, authorization: 'Bearer good-token' });
    assert.equal(result.user?.username, 'alice');
  });

  it('a certificate whose extended key usage excludes client auth is rejected', async () => {
    const result = await run({ clientCertificate: { ...adminCert, extKeyUsages: ['1.3.6.1.5.5.7.3.1'] } });
    assert.deepEqual(result, { user: null, reason: 'verifying certificate failed: x509: certificate specifies an incompatible key usage', warnings: [] });
    assert.equal((await run({ clientCertificate: { ...adminCert, extKeyUsages: ['2.5.29.37.0'] } })).user?.username, 'kubernetes-admin');
    assert.equal((await run({ clientCertificate: { ...adminCert, extKeyUsages: undefined } })).user?.username, 'kubernetes-admin');
  });

  it('a known bearer token is its user plus system:authenticated, without changing the token map', async () => {
    assert.deepEqual(await run({ authorization: 'Bearer good-token' }), {
      user: { username: 'alice', uid: 'uid-a', groups: ['devs', 'system:authenticated'] },
      method: 'token',
      warnings: [],
    });
    assert.deepEqual(alice.groups, ['devs']);
    assert.deepEqual((await run({ authorization: 'Bearer grouped' })).user?.groups, ['system:authenticated', 'x']);
  });

  it('matches the scheme case-insensitively and ignores what follows the token', async () => {
    for (const header of ['bearer good-token', 'BEARER good-token', '  Bearer good-token  ', 'Bearer good-token trailing']) {
      assert.equal((await run({ authorization: header })).user?.username, 'alice', header);
    }
  });

  it('an unknown bearer token is rejected even with anonymous access on', async () => {
    assert.deepEqual(await run({ authorization: 'Bearer nope' }), { user: null, reason: 'invalid bearer token', warnings: [] });
  });

  it('other schemes and an empty token are no credentials; an extra space warns', async () => {
    assert.deepEqual(await run({ authorization: 'Basic YTpi' }), { user: anonymousUser, method: 'anonymous', warnings: [] });
    assert.deepEqual(await run({ authorization: 'Bearer' }), { user: anonymousUser, method: 'anonymous', warnings: [] });
    assert.deepEqual(await run({ authorization: 'Bearer  good-token' }), { user: anonymousUser, method: 'anonymous', warnings: [EXTRA_SPACE_TOKEN_WARNING] });
  });

  it('without token authenticators a bearer token is still an error, never anonymous', async () => {
    assert.deepEqual(await run({ authorization: 'Bearer nope' }, { noTokens: true }), { user: null, reason: 'invalid bearer token', warnings: [] });
  });

  it('no credentials: anonymous when enabled, otherwise rejected', async () => {
    assert.deepEqual(await run({}), { user: anonymousUser, method: 'anonymous', warnings: [] });
    assert.deepEqual(await run({}, { anonymous: false }), { user: null, reason: 'no credentials', warnings: [] });
  });

  it('consults further token authenticators after the static tokens, in order', async () => {
    const calls: string[] = [];
    const failing: TokenAuthenticator = () => {
      calls.push('failing');
      throw new Error('secret lookup failed');
    };
    const bootstrap: TokenAuthenticator = async (token) => {
      calls.push('bootstrap');
      return token === 'abcdef.0123456789abcdef' ? { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] } : null;
    };
    const ok = await run({ authorization: 'Bearer abcdef.0123456789abcdef' }, { tokenAuthenticators: [failing, bootstrap] });
    assert.deepEqual(ok.user, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] });
    assert.deepEqual(calls, ['failing', 'bootstrap']);

    assert.equal((await run({ authorization: 'Bearer good-token' }, { tokenAuthenticators: [failing] })).user?.username, 'alice');
    assert.deepEqual(await run({ authorization: 'Bearer other' }, { tokenAuthenticators: [failing, bootstrap] }), {
      user: null,
      reason: 'secret lookup failed',
      warnings: [],
    });
  });
});

describe('clientCertificateOf', () => {
  it('reads verified, unverified and absent client certificates from real TLS connections', async (t) => {
    const ca = await createCA();
    const otherCa = await createCA({ commonName: 'other' });
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const admin = await issueClientCertificate(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters', 'ops'] });
    const stranger = await issueClientCertificate(otherCa, { commonName: 'mallory', organizations: ['system:masters'] });

    const seen: Array<ClientCertificate | undefined> = [];
    const server = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
      (socket: TLSSocket) => {
        seen.push(clientCertificateOf(socket));
        socket.end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const port = (server.address() as { port: number }).port;

    const handshake = (client?: CertificateAndKey) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca: ca.certPem, servername: 'localhost', cert: client?.certPem, key: client?.keyPem });
        socket.on('error', reject);
        socket.on('close', () => resolve());
        socket.resume();
      });

    await handshake(admin);
    await handshake(stranger);
    await handshake();

    assert.deepEqual(seen[0], {
      verified: true,
      commonName: 'kubernetes-admin',
      organizations: ['system:masters', 'ops'],
      extKeyUsages: ['1.3.6.1.5.5.7.3.2'],
    });
    assert.equal(seen[1]?.verified, false);
    assert.equal(seen[1]?.commonName, 'mallory');
    assert.equal(typeof seen[1]?.verificationError, 'string');
    assert.equal(seen[2], undefined);

    const authenticator = createAuthenticator({ anonymous: true });
    assert.equal((await authenticator.authenticate({ clientCertificate: seen[0] })).user?.username, 'kubernetes-admin');
    assert.equal((await authenticator.authenticate({ clientCertificate: seen[1] })).user, null);
    assert.equal((await authenticator.authenticate({ clientCertificate: seen[2] })).user?.username, 'system:anonymous');
  });
});
