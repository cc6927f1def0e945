/**
 * The authorization modes `--authorization-mode` may name, in one registry: each mode's name and
 * how it is built. The server's authorizer is the union of `system:masters` (always first, as
 * upstream) and the named modes in the order given.
 *
 * Upstream's ABAC and Webhook modes are known names that corral does not implement: naming them
 * stops the server with a message that says so, rather than pretending.
 */
import { goQuote } from '../../shared/go/format.ts';
import { allow, type AuthorizationResult, type Authorizer } from './authorizer.ts';
import type { PolicyRule } from '../../shared/api/rbac.ts';
import type { UserInfo } from '../registry/definition.ts';
import { privilegedGroups, systemPrivilegedGroup } from './privileged-groups.ts';
import { nodeIdentity } from './node/authorizer.ts';
import type { RbacAuthorizer } from './rbac/authorizer.ts';
import { unionAuthorizer } from './union.ts';

/** What the modes are built from; each mode takes what it needs. */
export interface AuthorizerDependencies {
  rbac(): RbacAuthorizer;
  node(): Authorizer;
}

interface ModeDefinition {
  name: string;
  build(dependencies: AuthorizerDependencies): Authorizer;
  /** What the mode grants a user in a namespace, for SelfSubjectRulesReview. */
  rules(dependencies: AuthorizerDependencies, user: UserInfo, namespace: string): UserRules;
}

const alwaysDeny: AuthorizationResult = Object.freeze({ decision: 'deny', reason: '' });

/** Everything: what AlwaysAllow and system:masters grant (upstream's rules of both). */
const fullAuthority = (): UserRules => ({
  rules: [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ],
  incomplete: false,
  errors: [],
});
const nothing = (): UserRules => ({ rules: [], incomplete: false, errors: [] });

export const authorizationModes: readonly ModeDefinition[] = [
  { name: 'AlwaysAllow', build: () => ({ authorize: () => allow }), rules: fullAuthority },
  { name: 'AlwaysDeny', build: () => ({ authorize: () => alwaysDeny }), rules: nothing },
  {
    name: 'Node',
    build: (d) => d.node(),
    // Upstream's Node authorizer cannot list a node's rules; for others it has none.
    rules: (_d, user) =>
      nodeIdentity(user) === undefined ? nothing() : { rules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] },
  },
  {
    name: 'RBAC',
    build: (d) => d.rbac(),
    rules: (d, user, namespace) => {
      // As upstream: RBAC's rule list is complete; missing roles show as errors only.
      const { rules, errors } = d.rbac().rulesFor(user, namespace);
      return { rules, incomplete: false, errors };
    },
  },
];

/** The rules a user holds (SelfSubjectRulesReview): `incomplete` when some could not be resolved. */
export interface UserRules {
  rules: PolicyRule[];
  incomplete: boolean;
  errors: string[];
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): UserRules;
}

/** Upstream's modes that corral does not implement. */
const unsupportedModes = ['ABAC', 'Webhook'];

/** Every problem with a list of modes, in upstream's words (BuiltInAuthorizationOptions.Validate). */
export function validateAuthorizationModes(modes: readonly string[]): string[] {
  const errors: string[] = [];
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (unsupportedModes.includes(mode)) {
      errors.push(`authorization-mode ${goQuote(mode)} is not supported by corral (supported: ${authorizationModes.map((m) => m.name).join(', ')})`);
    } else if (!authorizationModes.some((m) => m.name === mode)) {
      errors.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
    }
  }
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode [${modes.map(goQuote).join(' ')}] has mode specified more than once`);
  return errors;
}

function modesNamed(modes: readonly string[]): ModeDefinition[] {
  return modes.map((name) => {
    const mode = authorizationModes.find((m) => m.name === name);
    if (!mode) throw new Error(`authorization-mode ${goQuote(name)} is not a valid mode`);
    return mode;
  });
}

/** The server's authorizer: system:masters, then the modes in order (validated before). */
export function buildAuthorizer(modes: readonly string[], dependencies: AuthorizerDependencies): Authorizer {
  return unionAuthorizer([privilegedGroups(), ...modesNamed(modes).map((mode) => mode.build(dependencies))]);
}

/** The rules of the same chain: system:masters' full authority, then each mode's, all together. */
export function buildRuleResolver(modes: readonly string[], dependencies: AuthorizerDependencies): RuleResolver {
  const chain = modesNamed(modes);
  return {
    rulesFor(user, namespace) {
      const out = user.groups.includes(systemPrivilegedGroup) ? fullAuthority() : nothing();
      for (const mode of chain) {
        const more = mode.rules(dependencies, user, namespace);
        out.rules.push(...more.rules);
        out.errors.push(...more.errors);
        out.incomplete ||= more.incomplete;
      }
      return out;
    },
  };
}
