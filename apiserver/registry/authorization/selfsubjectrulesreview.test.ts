import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../../../shared/api/errors.ts';
import type { RuleResolver, UserRules } from '../../authorization/modes.ts';
import type { RequestContext } from '../definition.ts';
import { selfSubjectRulesReviewDefinition, type SelfSubjectRulesReview } from './selfsubjectrulesreview.ts';

const ctx: RequestContext = { user: { username: 'alice', groups: ['system:authenticated'] }, now: new Date('2024-05-06T07:08:09Z') };
const review = (namespace?: string): SelfSubjectRulesReview => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectRulesReview',
  metadata: { name: 'echoed?' },
  spec: namespace === undefined ? {} : { namespace },
});

/** A resolver that answers `rules` and records what it was asked. */
function resolver(rules: UserRules): RuleResolver & { asked: string[] } {
  const asked: string[] = [];
  return { asked, rulesFor: (user, namespace) => (asked.push(`${user.username}@${namespace}`), rules) };
}

describe('SelfSubjectRulesReview', () => {
  it("lists the requesting user's rules in the namespace, split into resource and non-resource rules", async () => {
    const rules = resolver({
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
        { verbs: ['list'] },
      ],
      incomplete: false,
      errors: [],
    });
    const answer = await selfSubjectRulesReviewDefinition(rules).review!.create(review('team'), ctx, '');
    assert.deepEqual(rules.asked, ['alice@team']);
    assert.deepEqual(answer, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: {},
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: false,
      },
    });
  });

  it('reports errors as upstream aggregates them', async () => {
    const create = async (errors: string[]) =>
      (await selfSubjectRulesReviewDefinition(resolver({ rules: [], incomplete: true, errors })).review!.create(review('team'), ctx, '')).status;
    assert.deepEqual(await create(['a']), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'a' });
    assert.equal((await create(['a', 'b', 'a']))?.evaluationError, '[a, b]');
  });

  it('refuses a review without a namespace with 400', async () => {
    const def = selfSubjectRulesReviewDefinition(resolver({ rules: [], incomplete: false, errors: [] }));
    assert.deepEqual(def.strategy.validate(review(), ctx), []);
    await assert.rejects(
      def.review!.create(review(), ctx, ''),
      (err: unknown) => isStatusError(err, 'BadRequest') && err.status.message === 'no namespace on request',
    );
  });
});
