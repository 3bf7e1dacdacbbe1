import type { FieldCause } from '../field-cause.js';
import type { KindRef } from './kind-ref.js';

export interface ApplyOptions {
  /** Name of the applying manager (the fieldManager query parameter); required by the server. */
  fieldManager: string;
  /** force=true: take ownership of conflicting fields instead of reporting conflicts. */
  force: boolean;
  /** Timestamp (RFC 3339) recorded in the managedFields entry. */
  now: string;
  /** apiVersion recorded in the managedFields entry. */
  apiVersion: string;
  /** Subresource the apply targets ('status', 'scale'); default none. */
  subresource?: string;
  /** Kind of the object: built-in kinds merge lists by their merge keys; others treat lists atomically. */
  kind?: KindRef;
}

export interface ApplyResult {
  object: Record<string, unknown>;
  conflicts: FieldCause[];
}

export function serverSideApply(
  _live: Record<string, unknown> | undefined,
  _applied: Record<string, unknown>,
  _options: ApplyOptions,
): ApplyResult {
  throw new Error('not implemented');
}

export function recordUpdate(
  _before: Record<string, unknown> | undefined,
  _after: Record<string, unknown>,
  _options: { manager: string; now: string; apiVersion: string; subresource?: string },
): Record<string, unknown> {
  throw new Error('not implemented');
}
