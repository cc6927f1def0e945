import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../shared/api/errors.ts';
import { noOpinion } from '../authorization/authorizer.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.ts';
import { admissionPlugins, buildAdmissionPlugins, enabledAdmissionPlugins, type AdmissionDependencies } from './plugins.ts';

const dependencies: AdmissionDependencies = {
  namespaceLifecycle: () => ({ name: 'NamespaceLifecycle', admit: async () => {} }),
  authorizer: { authorize: () => noOpinion },
  configuration: () => undefined,
};
const attributes: AdmissionAttributes = {
  operation: 'CREATE',
  definition: configMapDefinition,
  subresource: '',
  namespace: 'default',
  name: 'x',
  object: { metadata: { name: 'x' } },
  dryRun: false,
  context: { user: { username: 'admin', groups: ['system:masters'] }, now: new Date() },
};
const built = (...names: string[]) => buildAdmissionPlugins(names, dependencies);
const admit = async (plugin: AdmissionPlugin | undefined): Promise<void> => {
  assert.ok(plugin && 'admit' in plugin);
  await plugin.admit(attributes);
};

describe('the admission plugin registry', () => {
  it("has upstream's names, once each, AlwaysDeny last", () => {
    const names = admissionPlugins.map((p) => p.name);
    assert.equal(new Set(names).size, names.length);
    assert.equal(names.at(-1), 'AlwaysDeny');
    assert.ok(names.indexOf('NamespaceLifecycle') < names.indexOf('NodeRestriction'));
    assert.ok(names.indexOf('MutatingAdmissionWebhook') < names.indexOf('ValidatingAdmissionWebhook'));
  });

  it('enables the defaults in chain order, whatever order the flags name them in', () => {
    const { names, errors } = enabledAdmissionPlugins(['EventRateLimit', 'AlwaysAdmit'], ['ResourceQuota']);
    assert.deepEqual(errors, []);
    assert.equal(names[0], 'AlwaysAdmit');
    assert.ok(names.includes('EventRateLimit') && !names.includes('ResourceQuota'));
  });

  it('builds only the plugins corral can act with, and warns about the deprecated ones', () => {
    const { plugins, warnings } = built('NamespaceLifecycle', 'PodSecurity', 'AlwaysAdmit');
    assert.deepEqual(
      plugins.map((p) => p.name),
      ['AlwaysAdmit', 'NamespaceLifecycle'],
    );
    assert.deepEqual(warnings, ['AlwaysAdmit admission controller is deprecated. Please remove this controller from your configuration files and scripts.']);
  });

  it("AlwaysAdmit admits and AlwaysDeny refuses with upstream's message", async () => {
    await admit(built('AlwaysAdmit').plugins[0]);
    await assert.rejects(admit(built('AlwaysDeny').plugins[0]), (err: unknown) => {
      assert.ok(isStatusError(err, 'Forbidden'));
      assert.equal(err.status.message, 'configmaps "x" is forbidden: admission control is denying all modifications');
      return true;
    });
  });
});
