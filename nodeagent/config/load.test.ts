import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { configFlagDeprecation } from './flags.ts';
import { loadKubeletConfigFile, loadNodeAgentConfig } from './load.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeagent-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const header = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
let files = 0;
/** A config file holding `text`; its path. */
function file(text: string, name = `config-${files++}.yaml`): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const deprecated = (flag: string): string => `Flag --${flag} has been deprecated, ${configFlagDeprecation}`;
const wrapped = (path: string, detail: string): string =>
  `failed to load kubelet config file, path: ${path}, error: failed to load Kubelet config file ${path}, error ${detail}`;

describe('loading the configuration file', () => {
  it('reads YAML and JSON, and makes relative paths absolute against the file', () => {
    const yaml = loadKubeletConfigFile(file(`${header}maxPods: 30\nstaticPodPath: manifests\ntlsCertFile: /etc/tls.crt\n`));
    assert.equal(yaml.config.maxPods, 30);
    assert.equal(yaml.config.staticPodPath, join(dir, 'manifests'));
    assert.equal(yaml.config.tlsCertFile, '/etc/tls.crt');
    assert.deepEqual(yaml.warnings, []);
    const json = loadKubeletConfigFile(file('{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","port":10251}', 'c.json'));
    assert.equal(json.config.port, 10251);
  });

  it('unknown and duplicate fields: the strict decoding error, then lenient decoding (v1beta1), as the kubelet does', () => {
    const yaml = loadKubeletConfigFile(file(`${header}maxPods: 5\nbogus: 1\nauthentication:\n  nope: true\nmaxPods: 7\n`));
    assert.deepEqual(yaml.warnings, [
      'Using lenient decoding as strict decoding failed: strict decoding error: yaml: unmarshal errors:\n  line 7: key "maxPods" already set in map, unknown field "bogus", unknown field "authentication.nope"',
    ]);
    assert.equal(yaml.config.maxPods, 7);
    const json = loadKubeletConfigFile(file('{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","port":1,"port":2,"x":1}', 'd.json'));
    assert.deepEqual(json.warnings, ['Using lenient decoding as strict decoding failed: strict decoding error: unknown field "x", duplicate field "port"']);
  });

  const failures: [string, string, string][] = [
    [
      'a wrong type',
      `${header}maxPods: "110"\n`,
      'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32',
    ],
    ['a bad duration', `${header}syncFrequency: 1 minute\n`, 'failed to decode: time: unknown unit " minute" in duration "1 minute"'],
    ['no kind', 'apiVersion: kubelet.config.k8s.io/v1beta1\n', "failed to decode: Object 'Kind' is missing in 'apiVersion: kubelet.config.k8s.io/v1beta1\n'"],
    ['no apiVersion', 'kind: KubeletConfiguration\n', "failed to decode: Object 'apiVersion' is missing in 'kind: KubeletConfiguration\n'"],
    [
      'another version',
      'apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n',
      'failed to decode: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"',
    ],
    [
      'another kind',
      'apiVersion: v1\nkind: Config\n',
      'failed to decode: no kind "Config" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"',
    ],
  ];
  for (const [name, text, detail] of failures) {
    it(`fails on ${name} with upstream's message`, () => {
      const path = file(text);
      assert.throws(() => loadKubeletConfigFile(path), { message: wrapped(path, detail) });
    });
  }

  it('fails on a missing or empty file', () => {
    const missing = join(dir, 'missing.yaml');
    assert.throws(() => loadKubeletConfigFile(missing), {
      message: wrapped(missing, `failed to read kubelet config file "${missing}", error: open ${missing}: no such file or directory`),
    });
    const empty = file('');
    assert.throws(() => loadKubeletConfigFile(empty), { message: wrapped(empty, `kubelet config file "${empty}" was empty`) });
  });

  it('fails on malformed YAML without crashing', () => {
    const path = file(`${header}port: [\n`);
    assert.throws(
      () => loadKubeletConfigFile(path),
      (err: Error) => err.message.startsWith(wrapped(path, 'failed to decode: error converting YAML to JSON: yaml: ')),
    );
  });
});

describe('loadNodeAgentConfig', () => {
  it("the agent's flags and their defaults", () => {
    const { flags } = loadNodeAgentConfig(['--kubeconfig=/k', '--bootstrap-kubeconfig', '/b', '--hostname-override=n1', '--node-labels=a=b, c=d']);
    assert.equal(flags.kubeconfig, '/k');
    assert.equal(flags.bootstrapKubeconfig, '/b');
    assert.equal(flags.hostnameOverride, 'n1');
    assert.equal(flags.certDir, '/var/lib/kubelet/pki');
    assert.deepEqual(flags.nodeLabels, { a: 'b', c: 'd' });
  });

  it('without --config, the command line defaults apply: anonymous auth on, AlwaysAllow, read-only port 10255', () => {
    const { config, warnings } = loadNodeAgentConfig([]);
    assert.equal(config.authentication.anonymous.enabled, true);
    assert.equal(config.authorization.mode, 'AlwaysAllow');
    assert.equal(config.readOnlyPort, 10255);
    assert.deepEqual(warnings, []);
  });

  it("with --config, the file's defaults apply: anonymous auth off, Webhook", () => {
    const { config } = loadNodeAgentConfig(['--config', file(header)]);
    assert.equal(config.authentication.anonymous.enabled, false);
    assert.equal(config.authentication.webhook.enabled, true);
    assert.equal(config.authorization.mode, 'Webhook');
    assert.equal(config.readOnlyPort, 0);
  });

  it('flags given explicitly override the file, each with the deprecation warning; others keep the file', () => {
    const path = file(`${header}maxPods: 30\nport: 10260\nauthorization:\n  mode: Webhook\nfeatureGates:\n  NodeSwap: false\n  MemoryQoS: true\n`);
    const { config, warnings, featureGates } = loadNodeAgentConfig([
      '--config',
      path,
      '--max-pods=50',
      '--anonymous-auth',
      '--authorization-mode=AlwaysAllow',
      '--node-status-update-frequency=20s',
      '--feature-gates=NodeSwap=true',
      '--eviction-hard=memory.available<1Gi',
      '--cluster-dns=10.0.0.10,10.0.0.11',
    ]);
    assert.equal(config.maxPods, 50);
    assert.equal(config.port, 10260);
    assert.equal(config.authentication.anonymous.enabled, true);
    assert.equal(config.authorization.mode, 'AlwaysAllow');
    assert.equal(config.nodeStatusUpdateFrequency, 20_000);
    // the file was defaulted before the flag: the report frequency keeps its own default
    assert.equal(config.nodeStatusReportFrequency, 300_000);
    assert.deepEqual(config.featureGates, { NodeSwap: true, MemoryQoS: true });
    assert.equal(featureGates.enabled('NodeSwap'), true);
    assert.equal(featureGates.enabled('MemoryQoS'), true);
    assert.deepEqual(config.evictionHard, { 'memory.available': '1Gi' });
    assert.deepEqual(config.clusterDNS, ['10.0.0.10', '10.0.0.11']);
    assert.deepEqual(
      [...warnings].sort(),
      ['max-pods', 'anonymous-auth', 'authorization-mode', 'node-status-update-frequency', 'feature-gates', 'eviction-hard', 'cluster-dns']
        .map(deprecated)
        .sort(),
    );
  });

  it('lists every flag error at once, in pflag words (in the flag table order)', () => {
    assert.throws(
      () =>
        loadNodeAgentConfig([
          '--port=x',
          '--max-pods=99999999999',
          '--anonymous-auth=maybe',
          '--sync-frequency=1x',
          '--address=1.2.3',
          '--feature-gates=NodeSwap',
        ]),
      {
        message: [
          'invalid argument "1x" for "--sync-frequency" flag: time: unknown unit "x" in duration "1x"',
          'invalid argument "1.2.3" for "--address" flag: "1.2.3" is not a valid IP address',
          'invalid argument "x" for "--port" flag: strconv.ParseInt: parsing "x": invalid syntax',
          'invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
          'invalid argument "NodeSwap" for "--feature-gates" flag: malformed pair, expect string=bool',
          'invalid argument "99999999999" for "--max-pods" flag: strconv.ParseInt: parsing "99999999999": value out of range',
        ].join('\n'),
      },
    );
  });

  it("an unknown flag, a missing value, a stray argument: pflag's and the kubelet's words", () => {
    assert.throws(() => loadNodeAgentConfig(['--bogus']), { message: 'unknown flag: --bogus' });
    assert.throws(() => loadNodeAgentConfig(['--port']), { message: 'flag needs an argument: --port' });
    assert.throws(() => loadNodeAgentConfig(['--anonymous-auth', 'false']), { message: 'unknown command false' });
  });

  it('an unknown feature gate, from the flag or the file, is refused before validation', () => {
    const message = 'failed to set feature gates from initial flags-based config: unrecognized feature gate: Bogus';
    assert.throws(() => loadNodeAgentConfig(['--feature-gates=Bogus=true']), { message });
    assert.throws(() => loadNodeAgentConfig(['--config', file(`${header}featureGates:\n  Bogus: true\n`)]), { message });
  });

  it('validates the merged configuration: a flag can make a valid file invalid, every error listed', () => {
    const path = file(`${header}imageGCHighThresholdPercent: 90\n`);
    assert.throws(() => loadNodeAgentConfig(['--config', path, '--image-gc-low-threshold=95', '--port=0']), {
      message: [
        'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 95 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 90',
        'invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive',
      ].join('\n'),
    });
  });

  it('reads the credential provider configuration when given, and reports its errors with the others', () => {
    const providers = file(
      'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: ecr\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n  matchImages: ["*.dkr.ecr.*.amazonaws.com"]\n  defaultCacheDuration: 12h\n',
    );
    const loaded = loadNodeAgentConfig(['--image-credential-provider-config', providers]);
    assert.equal(loaded.credentialProviders?.providers[0]?.defaultCacheDuration, 12 * 3600_000);
    const bad = file('apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders: []\n');
    assert.throws(() => loadNodeAgentConfig(['--image-credential-provider-config', bad, '--max-pods=-1']), {
      message: [
        'invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
        'failed to validate credential provider config: providers: Required value: at least 1 item in plugins is required',
      ].join('\n'),
    });
  });
});
