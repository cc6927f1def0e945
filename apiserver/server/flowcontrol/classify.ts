/**
 * Which flow schema a request belongs to, and its flow within that schema: upstream's matching of
 * subjects, resource rules and non-resource rules, tried in order of matchingPrecedence and then
 * name, the first match winning.
 */
import { serviceAccountOf } from '../../auth/authenticate.ts';
import type { UserInfo } from '../../registry/definition.ts';
import type { RequestInfo } from '../requestinfo.ts';
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from './configuration.ts';

export interface FlowClassification {
  flowSchema: FlowSchema;
  /** Tells flows of one schema apart: the user name (ByUser), the namespace (ByNamespace) or nothing. */
  flowDistinguisher: string;
}

function matchesSubject(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user.name === '*' || subject.user.name === user.username;
    case 'Group':
      return subject.group.name === '*' || user.groups.includes(subject.group.name);
    case 'ServiceAccount': {
      const account = serviceAccountOf(user.username);
      const { namespace, name } = subject.serviceAccount;
      return account !== undefined && account.namespace === namespace && (name === '*' || name === account.name);
    }
  }
}

const containsOrAll = (values: readonly string[], value: string): boolean => values.includes('*') || values.includes(value);

function matchesResourceRule(rule: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!containsOrAll(rule.verbs, info.verb) || !containsOrAll(rule.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!containsOrAll(rule.resources, resource)) return false;
  if (!info.namespace) return rule.clusterScope === true;
  return containsOrAll(rule.namespaces ?? [], info.namespace);
}

function matchesNonResourceRule(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!containsOrAll(rule.verbs, info.verb)) return false;
  return rule.nonResourceURLs.some((url) => url === '*' || url === info.path || (url.endsWith('/*') && info.path.startsWith(url.slice(0, -1))));
}

function matchesRules(rules: PolicyRulesWithSubjects, user: UserInfo, info: RequestInfo): boolean {
  if (!rules.subjects.some((subject) => matchesSubject(subject, user))) return false;
  if (info.isResourceRequest) return (rules.resourceRules ?? []).some((rule) => matchesResourceRule(rule, info));
  return (rules.nonResourceRules ?? []).some((rule) => matchesNonResourceRule(rule, info));
}

export class FlowClassifier {
  private readonly schemas: readonly FlowSchema[];

  constructor(schemas: readonly FlowSchema[]) {
    this.schemas = [...schemas].sort((a, b) => a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The first schema that matches, or undefined (impossible with the mandatory catch-all schema). */
  classify(user: UserInfo, info: RequestInfo): FlowClassification | undefined {
    for (const flowSchema of this.schemas) {
      if (!flowSchema.spec.rules.some((rules) => matchesRules(rules, user, info))) continue;
      const method = flowSchema.spec.distinguisherMethod?.type;
      const flowDistinguisher = method === 'ByUser' ? user.username : method === 'ByNamespace' ? info.namespace : '';
      return { flowSchema, flowDistinguisher };
    }
    return undefined;
  }
}
