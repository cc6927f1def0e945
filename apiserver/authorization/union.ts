/**
 * The union of authorizers (upstream's union authorizer): asked in order, the first `allow` or
 * `deny` decides; when all pass, the answer is `no-opinion` with every reason given, one per line.
 */
import type { UserInfo } from '../registry/definition.ts';
import { noOpinion, type AuthorizationAttributes, type AuthorizationResult, type Authorizer } from './authorizer.ts';

export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationResult> {
      let reasons: string[] | undefined;
      for (const authorizer of authorizers) {
        const answer = authorizer.authorize(user, attributes);
        // Most authorizers answer at once: no turn of the event loop for them.
        const result = answer instanceof Promise ? await answer : answer;
        if (result.decision !== 'no-opinion') return result;
        if (result.reason) (reasons ??= []).push(result.reason);
      }
      return reasons ? { decision: 'no-opinion', reason: reasons.join('\n') } : noOpinion;
    },
  };
}
