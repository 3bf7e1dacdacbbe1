import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  connectionError,
  isAlreadyExists,
  isConflict,
  isConnectionError,
  isForbidden,
  isGone,
  isNotFound,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
} from '../../lib/kube/api-error.js';

const api = (code: number, reason: string): ApiError => new ApiError({ code, reason, message: reason });

describe('ApiError predicates', () => {
  it('classify by status code and reason', () => {
    expect(isNotFound(api(404, 'NotFound'))).toBe(true);
    expect(isConflict(api(409, 'Conflict'))).toBe(true);
    expect(isConflict(api(409, 'AlreadyExists'))).toBe(false);
    expect(isAlreadyExists(api(409, 'AlreadyExists'))).toBe(true);
    expect(isAlreadyExists(api(409, 'Conflict'))).toBe(false);
    expect(isGone(api(410, 'Expired'))).toBe(true);
    expect(isForbidden(api(403, 'Forbidden'))).toBe(true);
    expect(isUnauthorized(api(401, 'Unauthorized'))).toBe(true);
    expect(isTooManyRequests(api(429, 'TooManyRequests'))).toBe(true);
    expect(isServerError(api(503, 'ServiceUnavailable'))).toBe(true);
    expect(isServerError(api(404, 'NotFound'))).toBe(false);
    expect(isNotFound(new Error('x'))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  it("recognise client-node's ApiException", () => {
    expect(isNotFound(new ApiException(404, 'nf', '{}', {}))).toBe(true);
    expect(isServerError(new ApiException(500, 'boom', '{}', {}))).toBe(true);
  });

  it('recognise connection errors, raw or wrapped', () => {
    const raw = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(isConnectionError(raw)).toBe(true);
    const wrapped = connectionError(raw, 'GET /api');
    expect(wrapped.code).toBe(0);
    expect(wrapped.cause).toBe(raw);
    expect(isConnectionError(wrapped)).toBe(true);
    expect(isConnectionError(new Error('x', { cause: raw }))).toBe(true);
    expect(isConnectionError(api(500, 'InternalError'))).toBe(false);
  });
});
