/**
 * SelfSubjectRulesReview (authorization.k8s.io/v1): what the requesting user may do in a namespace
 * (`kubectl auth can-i --list`), for display only: the list may be incomplete.
 */
import { badRequest } from '../../../shared/api/errors.ts';
import type { PolicyRule } from '../../../shared/api/rbac.ts';
import { describe, kindSchema, named, object, pb, string } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import type { RuleResolver } from '../../authorization/modes.ts';
import { defineResource } from '../definition.ts';
import { authorizationGroup } from './access-review.ts';
import { subjectRulesReviewStatus } from './schema.ts';

type ResourceRule = Pick<PolicyRule, 'verbs' | 'apiGroups' | 'resources' | 'resourceNames'>;
type NonResourceRule = Pick<PolicyRule, 'verbs' | 'nonResourceURLs'>;

export interface SelfSubjectRulesReview extends KubeObject {
  spec?: { namespace?: string };
  status?: { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; evaluationError?: string };
}

const selfSubjectRulesReviewSpec = () =>
  named(
    'io.k8s.api.authorization.v1.SelfSubjectRulesReviewSpec',
    'Where to list the rules.',
    object({ namespace: pb(1, string('Namespace to list the rules of; required.')) }),
  );

/** Upstream's aggregate error text: distinct messages, bracketed and comma separated when more than one. */
function aggregate(errors: readonly string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? distinct[0]! : distinct.length ? `[${distinct.join(', ')}]` : '';
}

/** A rule naming resources lists as a resource rule, one naming paths as a non-resource rule (both when it names both). */
function splitRules(rules: readonly PolicyRule[]): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const rule of rules) {
    if (rule.resources?.length) {
      const { verbs, apiGroups, resources, resourceNames } = rule;
      resourceRules.push({ verbs, ...(apiGroups?.length ? { apiGroups } : {}), resources, ...(resourceNames?.length ? { resourceNames } : {}) });
    }
    if (rule.nonResourceURLs?.length) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
  }
  return { resourceRules, nonResourceRules };
}

export function selfSubjectRulesReviewDefinition(rules: RuleResolver) {
  return defineResource<SelfSubjectRulesReview>({
    group: authorizationGroup,
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    plural: 'selfsubjectrulesreviews',
    singular: 'selfsubjectrulesreview',
    namespaced: false,
    verbs: ['create'],
    schema: describe(
      kindSchema(
        {
          spec: pb(2, describe(selfSubjectRulesReviewSpec(), 'Where to list the rules.')),
          status: pb(3, describe(subjectRulesReviewStatus(), 'The rules, filled in by the server.')),
        },
        ['spec'],
      ),
      'Lists what the requesting user may do in a namespace; for display, never for authorization decisions.',
    ),
    // Upstream validates nothing; a missing namespace is a 400 from create.
    strategy: { validate: () => [] },
    review: {
      async create(review, ctx) {
        const namespace = review.spec?.namespace ?? '';
        if (!namespace) throw badRequest('no namespace on request');
        const resolved = rules.rulesFor(ctx.user, namespace);
        const evaluationError = aggregate(resolved.errors);
        // Upstream answers with a new review: the request's metadata and spec are not echoed.
        return {
          apiVersion: review.apiVersion,
          kind: review.kind,
          metadata: {},
          spec: {},
          status: { ...splitRules(resolved.rules), incomplete: resolved.incomplete, ...(evaluationError ? { evaluationError } : {}) },
        };
      },
    },
  });
}
