import type { Reply } from '../http-io.js';
import { parseJsonObject } from '../http-io.js';
import { formatTime, isJsonObject, objectAt, stringAt, type JsonObject } from '../json.js';
import { apiVersionOf } from '../resource-type.js';
import { ApiError, badRequest, failureStatus } from '../status.js';
import type { FieldCause } from '../field-cause.js';
import type { RequestContext } from './request-context.js';

/** Who a request is, as the review APIs report it (`kubectl auth whoami`). */
export interface UserInfo {
  username: string;
  groups: string[];
}

/** The anonymous user, as kube-apiserver names a request without credentials. */
export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Which token a TokenReview accepts and the user it stands for (the server's `token`), if any. */
export interface ReviewAuthentication {
  /** The user of a request (client certificate, the server's token, else anonymous). */
  identify: (ctx: RequestContext) => UserInfo;
  /** The user a bearer token authenticates as, or undefined when the server would not accept it. */
  tokenUser: (token: string) => UserInfo | undefined;
}

/**
 * The create-only review APIs (authentication.k8s.io TokenReview and SelfSubjectReview,
 * authorization.k8s.io SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and
 * SelfSubjectRulesReview) as kube-apiserver answers them with an authorizer that allows everything: the
 * request's spec is validated as kube validates it (pkg/apis/authorization/validation), the answer is
 * 201 with the status filled in, and nothing is stored.
 */
export function handleReview(ctx: RequestContext, auth: ReviewAuthentication): Reply {
  const obj = parseJsonObject(ctx.body);
  const spec = objectAt(obj, 'spec') ?? {};
  const typeMeta = { apiVersion: apiVersionOf(ctx.type.group, ctx.version.name), kind: ctx.type.kind };
  const echo = (status: JsonObject): Reply => ({
    code: 201,
    body: { ...typeMeta, metadata: {}, spec, status },
  });
  switch (ctx.type.kind) {
    case 'SelfSubjectReview': {
      const user = auth.identify(ctx);
      return {
        code: 201,
        body: {
          ...typeMeta,
          metadata: { creationTimestamp: formatTime(ctx.core.clock()) },
          status: { userInfo: { username: user.username, groups: user.groups } },
        },
      };
    }
    case 'TokenReview': {
      const token = stringAt(spec, 'token') ?? '';
      if (token === '') throw badRequest('token is required for TokenReview in authentication');
      const user = auth.tokenUser(token);
      const status: JsonObject =
        user === undefined
          ? { user: {}, error: 'invalid bearer token' }
          : { authenticated: true, user: { username: user.username, groups: user.groups } };
      return echo(status);
    }
    case 'SelfSubjectRulesReview': {
      if ((stringAt(spec, 'namespace') ?? '') === '') throw badRequest('no namespace on request');
      return {
        code: 201,
        body: {
          ...typeMeta,
          metadata: {},
          spec: {},
          status: {
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
            incomplete: false,
          },
        },
      };
    }
    default: {
      checkAccessReview(ctx, spec);
      return echo({ allowed: true });
    }
  }
}

/** kube's Validate{,Self,Local}SubjectAccessReview (pkg/apis/authorization/validation/validation.go). */
function checkAccessReview(ctx: RequestContext, spec: JsonObject): void {
  const causes: FieldCause[] = [];
  const cause = (field: string, value: string, message: string): void => {
    causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${message}` });
  };
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  const hasResource = isJsonObject(resource);
  const hasNonResource = isJsonObject(nonResource);
  if (hasResource && hasNonResource) {
    cause(
      'spec.nonResourceAttributes',
      JSON.stringify(nonResource),
      'cannot be specified in combination with resourceAttributes',
    );
  }
  if (!hasResource && !hasNonResource) {
    cause(
      'spec.resourceAttributes',
      'null',
      'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  }
  const kind = ctx.type.kind;
  if (kind === 'SubjectAccessReview' || kind === 'LocalSubjectAccessReview') {
    const user = stringAt(spec, 'user') ?? '';
    const groups = Array.isArray(spec.groups) ? spec.groups : [];
    if (user === '' && groups.length === 0)
      cause('spec.user', '""', 'at least one of user or group must be specified');
  }
  if (kind === 'LocalSubjectAccessReview' && hasResource) {
    const namespace = stringAt(resource, 'namespace') ?? '';
    if (namespace !== (ctx.info.namespace ?? ''))
      cause('spec.resourceAttributes.namespace', JSON.stringify(namespace), 'must match metadata.namespace');
  }
  if (kind === 'LocalSubjectAccessReview' && hasNonResource) {
    cause('spec.nonResourceAttributes', JSON.stringify(nonResource), 'disallowed on this kind of request');
  }
  // kube decodes the body into the internal type, whose Kind is empty: the message starts with `.<group>`.
  if (causes.length > 0) {
    const parts = causes.map((c) => `${c.field}: ${c.message}`);
    const summary = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
    throw new ApiError(
      failureStatus(422, 'Invalid', `.${ctx.type.group} "" is invalid: ${summary}`, {
        group: ctx.type.group,
        causes,
      }),
    );
  }
}
