import { randomBytes } from 'node:crypto';

/** A bearer token no one can guess (256 random bits, base64url), for a server only its own kubeconfig reaches. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}
