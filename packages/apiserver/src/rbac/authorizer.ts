// kube-apiserver's authorizer chain with `--authorization-mode=RBAC`: the system:masters group is allowed
// everything, then RBAC allows what a bound rule grants; nothing else is allowed. A denial is the 403
// responsewriters.Forbidden builds, with RBAC's reason (a binding to a missing role) appended.

import { failure, StatusError } from '../apimachinery/status.ts';
import { mastersGroup, type UserInfo } from '../authentication/authenticate.ts';
import type { AuthorizationAttributes } from './attributes.ts';
import { type PolicyRule, ruleAllows } from './policy-rule.ts';
import { aggregateMessage, type RbacObjects, RuleResolver } from './rule-resolver.ts';

/** An authorizer's answer: allowed or not (RBAC never denies outright), with kube's reason text. */
export interface Decision {
  allowed: boolean;
  reason: string;
}

/** A resource rule as a SelfSubjectRulesReview lists it. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A non-resource rule as a SelfSubjectRulesReview lists it. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a user may do in a namespace (kube's RuleResolver answer). */
export interface RulesReview {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  /** Set when a binding could not be resolved (the rules are then partial). */
  evaluationError?: string;
}

/** Decides requests from the RBAC objects of a {@link Store}. */
export class Authorizer {
  readonly resolver: RuleResolver;

  constructor(store: RbacObjects) {
    this.resolver = new RuleResolver(store);
  }

  /** The union of the superuser and RBAC authorizers' decisions. */
  authorize(attributes: AuthorizationAttributes): Decision {
    // The privileged-group authorizer allows without a reason.
    if (attributes.user.groups.includes(mastersGroup)) return { allowed: true, reason: '' };
    let reason = '';
    const errors: string[] = [];
    this.resolver.visitRulesFor(
      attributes.user,
      attributes.path === undefined ? attributes.namespace : '',
      (rule, describe, error) => {
        if (rule !== undefined && ruleAllows(attributes, rule)) {
          reason = `RBAC: allowed by ${describe!()}`;
          return false;
        }
        if (error !== undefined) errors.push(error);
        return true;
      },
    );
    if (reason !== '') return { allowed: true, reason };
    return {
      allowed: false,
      reason: errors.length === 0 ? '' : `RBAC: ${aggregateMessage(errors)}`,
    };
  }

  /** Throws kube's 403 unless the request is allowed. */
  check(attributes: AuthorizationAttributes): void {
    const decision = this.authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  }

  /** The rules `user` holds in `namespace` (SelfSubjectRulesReview); system:masters is not a rule. */
  rulesFor(user: UserInfo, namespace: string): RulesReview {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const review: RulesReview = {
      resourceRules: rules.filter(hasResources).map(resourceRuleOf),
      nonResourceRules: rules.filter(hasNonResourceUrls).map(nonResourceRuleOf),
      incomplete: false,
    };
    if (errors.length > 0) review.evaluationError = aggregateMessage(errors);
    return review;
  }
}

function hasResources(rule: PolicyRule): boolean {
  return (rule.resources?.length ?? 0) > 0;
}

function hasNonResourceUrls(rule: PolicyRule): boolean {
  return (rule.nonResourceURLs?.length ?? 0) > 0;
}

function resourceRuleOf(rule: PolicyRule): ResourceRule {
  const result: ResourceRule = { verbs: rule.verbs ?? [] };
  if (rule.apiGroups !== undefined) result.apiGroups = rule.apiGroups;
  result.resources = rule.resources!;
  if (rule.resourceNames !== undefined && rule.resourceNames.length > 0) {
    result.resourceNames = rule.resourceNames;
  }
  return result;
}

function nonResourceRuleOf(rule: PolicyRule): NonResourceRule {
  return { verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs! };
}

// responsewriters' sanitizer: a message never reads as HTML.
function sanitize(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * kube's 403 for a denied request: `configmaps "a" is forbidden: User "u" cannot get resource "configmaps"
 * in API group "" in the namespace "default"`, `forbidden: User "u" cannot get path "/foo"` for other paths,
 * with `: <reason>` when the authorizer gave one.
 */
export function forbiddenError(attributes: AuthorizationAttributes, reason: string): StatusError {
  const user = attributes.user.name;
  let message: string;
  let details: NonNullable<ReturnType<typeof failure>['details']>;
  if (attributes.path !== undefined) {
    message = `User "${user}" cannot ${attributes.verb} path "${attributes.path}"`;
    details = {};
  } else {
    const resource =
      attributes.subresource === ''
        ? attributes.resource
        : `${attributes.resource}/${attributes.subresource}`;
    const scope =
      attributes.namespace === ''
        ? 'at the cluster scope'
        : `in the namespace "${attributes.namespace}"`;
    message = `User "${user}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.group}" ${scope}`;
    details = { name: attributes.name, group: attributes.group, kind: attributes.resource };
  }
  message = sanitize(message);
  if (reason !== '') message = `${message}: ${reason}`;
  let prefix = 'forbidden';
  if (attributes.path === undefined && attributes.resource !== '') {
    const qualified =
      attributes.group === '' ? attributes.resource : `${attributes.resource}.${attributes.group}`;
    prefix =
      attributes.name === ''
        ? `${qualified} is forbidden`
        : `${qualified} "${attributes.name}" is forbidden`;
  }
  if (details.kind === '') delete details.kind;
  return new StatusError(failure(403, 'Forbidden', `${prefix}: ${message}`, details));
}
