import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fieldErrorString } from '../../shared/api/field.ts';
import {
  loadCredentialProviderConfig,
  mergeProviderCredentials,
  schemelessUrlError,
  validateCredentialProviderConfig,
  type CredentialProvider,
} from './credential-provider.ts';

const dir = mkdtempSync(join(tmpdir(), 'credential-provider-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const header = 'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\n';
const provider = (over: Partial<CredentialProvider> = {}): CredentialProvider => ({
  name: 'ecr',
  matchImages: ['*.dkr.ecr.*.amazonaws.com'],
  defaultCacheDuration: 60_000,
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
  args: [],
  env: [],
  ...over,
});
const errorsOf = (...providers: CredentialProvider[]): string[] => validateCredentialProviderConfig({ providers }).map(fieldErrorString);

describe('validateCredentialProviderConfig', () => {
  it('accepts a complete provider', () => assert.deepEqual(errorsOf(provider()), []));
  it('needs providers', () => assert.deepEqual(errorsOf(), ['providers: Required value: at least 1 item in plugins is required']));
  it('checks names', () => {
    assert.deepEqual(errorsOf(provider({ name: 'a/b c' }), provider({ name: '..' }), provider({ name: '..' })), [
      `providers.name: Invalid value: "a/b c": provider name cannot contain '/'`,
      'providers.name: Invalid value: "a/b c": provider name cannot contain spaces',
      `providers.name: Invalid value: "..": provider name cannot be '..'`,
      `providers.name: Invalid value: "..": provider name cannot be '..'`,
      'providers.name: Duplicate value: ".."',
    ]);
  });
  it("checks the plugin's apiVersion", () => {
    assert.deepEqual(errorsOf(provider({ apiVersion: '' })), ['providers.apiVersion: Required value']);
    assert.deepEqual(errorsOf(provider({ apiVersion: 'v1' })), [
      'providers.apiVersion: Unsupported value: "v1": supported values: "credentialprovider.kubelet.k8s.io/v1", "credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1"',
    ]);
  });
  it('checks matchImages', () => {
    assert.deepEqual(errorsOf(provider({ matchImages: [] })), ['providers.matchImages: Required value: at least 1 item in matchImages is required']);
    assert.deepEqual(errorsOf(provider({ matchImages: ['registry.io:port/x'] })), [
      'providers.matchImages: Invalid value: "registry.io:port/x": match image is invalid: parse "https://registry.io:port/x": invalid port ":port" after host',
    ]);
  });
  it('checks defaultCacheDuration', () => {
    assert.deepEqual(errorsOf(provider({ defaultCacheDuration: null })), ['providers.defaultCacheDuration: Required value']);
    assert.deepEqual(errorsOf(provider({ defaultCacheDuration: -60_000 })), [
      'providers.defaultCacheDuration: Invalid value: -1m0s: must be greater than or equal to 0',
    ]);
  });
});

describe('schemelessUrlError (url.Parse of https://<image>)', () => {
  it('accepts globs, ports and paths', () => {
    for (const image of ['*.azurecr.io', 'gcr.io', 'registry.io:8080/path', '*.*.registry.io', '[::1]:5000/x'])
      assert.equal(schemelessUrlError(image), null, image);
  });
  it("refuses what Go's parser refuses, with its message", () => {
    assert.equal(schemelessUrlError('a b.io'), 'parse "https://a b.io": invalid character " " in host name');
    assert.equal(schemelessUrlError('gcr.io/%zz'), 'parse "https://gcr.io/%zz": invalid URL escape "%zz"');
    assert.equal(schemelessUrlError('gcr.io\n'), 'parse "https://gcr.io\\n": net/url: invalid control character in URL');
  });
});

describe('loadCredentialProviderConfig', () => {
  it('reads a valid file', () => {
    const path = join(dir, 'ok.yaml');
    writeFileSync(
      path,
      `${header}providers:\n- name: ecr\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n  matchImages: ["*.dkr.ecr.*.amazonaws.com"]\n  defaultCacheDuration: 12h\n  args: [get-credentials]\n`,
    );
    const { config, errors } = loadCredentialProviderConfig(path, undefined);
    assert.deepEqual(errors, []);
    assert.deepEqual(config?.providers[0]?.args, ['get-credentials']);
  });
  it('decodes strictly: an unknown field is an error, not a warning', () => {
    const path = join(dir, 'unknown.yaml');
    writeFileSync(path, `${header}providers: []\nbogus: 1\n`);
    assert.deepEqual(loadCredentialProviderConfig(path, undefined).errors, [`error decoding config ${path}: strict decoding error: unknown field "bogus"`]);
  });
  it('names a file it cannot read, a wrong kind, a missing bin dir or plugin', () => {
    const missing = join(dir, 'missing.yaml');
    assert.deepEqual(loadCredentialProviderConfig(missing, undefined).errors, [
      `unable to read external registry credential provider configuration from "${missing}": open ${missing}: no such file or directory`,
    ]);
    const kubelet = join(dir, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n');
    assert.deepEqual(loadCredentialProviderConfig(kubelet, undefined).errors, [
      `error decoding config ${kubelet}: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "pkg/credentialprovider/plugin/plugin.go"`,
    ]);
    assert.deepEqual(loadCredentialProviderConfig(kubelet, join(dir, 'nobin')).errors, [`plugin binary directory ${join(dir, 'nobin')} did not exist`]);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const ok = join(dir, 'ok2.yaml');
    writeFileSync(
      ok,
      `${header}providers:\n- name: ecr\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n  matchImages: [gcr.io]\n  defaultCacheDuration: 1m\n`,
    );
    assert.deepEqual(loadCredentialProviderConfig(ok, bin).errors, [`plugin binary executable ${join(bin, 'ecr')} did not exist`]);
  });
});

describe('mergeProviderCredentials', () => {
  it('combines providers; for an overlapping key the earlier provider wins', () => {
    const a = { 'gcr.io': { username: 'a', password: 'a' } };
    const b = { 'gcr.io': { username: 'b', password: 'b' }, 'quay.io': { username: 'b', password: 'b' } };
    assert.deepEqual(mergeProviderCredentials([a, b]), { 'gcr.io': { username: 'a', password: 'a' }, 'quay.io': { username: 'b', password: 'b' } });
  });
});
