import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configHashAnnotation } from './pod.ts';
import { clusterTrustBundleMessage, decodeManifestBody, decodeManifestFile, decodePodList, decodeSinglePod, staticPodUid } from './static-pod.ts';
import { testRules } from './testing.ts';

const web = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
`;

describe('static pod processing', () => {
  it('names, places, hashes and annotates a file pod as upstream', () => {
    const result = decodeManifestFile(web, '/etc/kubernetes/manifests/web.yaml', testRules('Node-1'));
    assert.ok('pod' in result);
    const pod = result.pod;
    assert.equal(pod.metadata.name, 'web-node-1');
    assert.equal(pod.metadata.namespace, 'default');
    assert.match(pod.metadata.uid ?? '', /^[0-9a-f]{32}$/);
    assert.deepEqual(pod.metadata.annotations, { [configHashAnnotation]: pod.metadata.uid });
    assert.equal(pod.spec?.nodeName, 'Node-1');
    assert.deepEqual(pod.spec?.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
    assert.equal(pod.spec?.['restartPolicy'], 'Always', 'the injected defaults ran');
    assert.deepEqual(pod.status, { phase: 'Pending' });
  });

  it('derives the UID from the content, the node and the path', () => {
    const uid = (text: string, path: string, node = 'n'): string => {
      const r = decodeManifestFile(text, path, testRules(node));
      assert.ok('pod' in r);
      return r.pod.metadata.uid ?? '';
    };
    assert.equal(uid(web, '/m/a.yaml'), uid(web, '/m/a.yaml'));
    assert.notEqual(uid(web, '/m/a.yaml'), uid(web, '/m/b.yaml'));
    assert.notEqual(uid(web, '/m/a.yaml'), uid(web, '/m/a.yaml', 'other'));
    assert.notEqual(uid(web, '/m/a.yaml'), uid(web.replace('1.27', '1.28'), '/m/a.yaml'));
    // JSON and YAML of one pod hash alike: the hash is of the object, not of the text.
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } });
    assert.equal(uid(json, '/m/a.yaml'), uid(web, '/m/a.yaml'));
    assert.equal(
      staticPodUid({ metadata: {} }, 'http', 'http://x', 'n'),
      staticPodUid({ metadata: {} }, 'http', 'http://x', 'other'),
      'URL pods ignore the node',
    );
  });

  it('keeps a UID and namespace the manifest sets, and replaces a matching toleration', () => {
    const text =
      web.replace('  name: web', '  name: web\n  namespace: kube-system\n  uid: fixed') +
      '  tolerations:\n  - operator: Exists\n    effect: NoExecute\n    tolerationSeconds: 5\n';
    const r = decodeManifestFile(text, '/m/web.yaml', testRules());
    assert.ok('pod' in r);
    assert.equal(r.pod.metadata.uid, 'fixed');
    assert.equal(r.pod.metadata.namespace, 'kube-system');
    assert.deepEqual(r.pod.spec?.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
  });

  it('gives URL pods no toleration', () => {
    const r = decodeSinglePod(web, 'http', 'http://cfg/pods', testRules());
    assert.ok('pods' in r);
    assert.equal(r.pods[0]?.spec?.tolerations, undefined);
  });

  it('reports an invalid pod with the validation errors in upstream form', () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n  - name: Web\n';
    assert.deepEqual(decodeManifestFile(text, '/m/bad.yaml', testRules()), {
      error:
        'invalid pod: [spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters spec.containers[0].image: Required value]',
    });
    assert.deepEqual(decodeManifestFile('apiVersion: v1\nkind: Pod\nmetadata: {}\n', '/m/x', testRules()), {
      error: 'invalid pod: name is needed for the pod',
    });
  });

  it("says a file couldn't be parsed as a pod, naming the file", () => {
    const rules = testRules();
    const broken = decodeManifestFile('apiVersion: v1\nkind: Pod\nmetadata: [\n', '/m/a.yaml', rules);
    assert.ok('error' in broken);
    assert.match(broken.error, /^\/m\/a\.yaml: couldn't parse as pod\(yaml: .*\), please check config file$/);
    assert.deepEqual(decodeManifestFile('{"kind": "Pod"', '/m/a.json', rules), {
      error: "/m/a.json: couldn't parse as pod(couldn't get version/kind; json parse error: unexpected end of JSON input), please check config file",
    });
    assert.deepEqual(decodeManifestFile('apiVersion: v2\nkind: Pod\n', '/m/a', rules), {
      error: `/m/a: couldn't parse as pod(no kind "Pod" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"), please check config file`,
    });
    assert.deepEqual(decodeManifestFile('metadata:\n  name: x\n', '/m/a', rules), {
      error: `/m/a: couldn't parse as pod(Object 'Kind' is missing in '{"metadata":{"name":"x"}}'), please check config file`,
    });
    assert.deepEqual(decodeManifestFile('', '/m/empty', rules), {
      error: `/m/empty: couldn't parse as pod(Object 'Kind' is missing in 'null'), please check config file`,
    });
  });

  it('decodes as Go does: a field of the wrong type fails the pod, a null is a zero value', () => {
    const rules = testRules();
    const wrongType = decodeManifestFile(`${web}  securityContext:\n    runAsUser: root\n`, '/m/a', rules);
    assert.ok('error' in wrongType);
    // Go names the innermost struct holding the field, then the field's path from the root.
    assert.match(
      wrongType.error,
      /^\/m\/a: couldn't parse as pod\(json: cannot unmarshal string into Go struct field PodSecurityContext\.spec\.securityContext\.runAsUser of type int64\), please check config file$/,
    );
    const nulls = decodeManifestFile(`${web}  securityContext:\n    sysctls:\n    - null\n    seccompProfile: null\n`, '/m/a', rules);
    assert.ok('pod' in nulls, JSON.stringify(nulls));
    assert.deepEqual(nulls.pod.spec?.securityContext, { sysctls: [{}] });
  });

  it('refuses ClusterTrustBundle projections in static pods', () => {
    const text = web + '  volumes:\n  - name: ctb\n    projected:\n      sources:\n      - clusterTrustBundle:\n          name: x\n          path: ca.pem\n';
    assert.deepEqual(decodeSinglePod(text, 'file', '/m/a', testRules()), { parsed: true, error: clusterTrustBundleMessage });
  });

  it('decodes a PodList, failing it whole on one invalid item', () => {
    const list = { apiVersion: 'v1', kind: 'PodList', items: [{ metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i' }] } }] };
    const ok = decodePodList(JSON.stringify(list), 'http', 'http://cfg', testRules('n'));
    assert.ok('pods' in ok);
    assert.deepEqual(
      ok.pods.map((p) => p.metadata.name),
      ['a-n'],
    );
    list.items.push({ metadata: { name: 'b' }, spec: { containers: [] } });
    assert.deepEqual(decodePodList(JSON.stringify(list), 'http', 'http://cfg', testRules('n')), {
      parsed: true,
      error: 'invalid pod: [spec.containers: Required value]',
    });
  });

  it('tries a URL body as one pod, then as a list, then says both failed', () => {
    assert.ok('pods' in decodeManifestBody(web, 'http://cfg', testRules()));
    const list = 'apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: a\n  spec:\n    containers:\n    - name: c\n      image: i\n';
    const fromList = decodeManifestBody(list, 'http://cfg', testRules());
    assert.ok('pods' in fromList);
    assert.equal(fromList.pods.length, 1);
    assert.deepEqual(decodeManifestBody('apiVersion: v1\nkind: ConfigMap\n', 'http://cfg', testRules()), {
      error: `http://cfg: received 'apiVersion: v1\nkind: ConfigMap\n', but couldn't parse as single (invalid pod: kind "ConfigMap") or multiple pods (invalid pods list: kind "ConfigMap")`,
    });
  });
});
