import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether two strings are equal, in time that depends neither on where they differ nor on their lengths
 * (both are hashed with SHA-256 first): for comparing secrets such as bearer tokens.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
