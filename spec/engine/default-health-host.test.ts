import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { defaultHealthHost } from '../../lib/engine/default-health-host.js';

const dir = mkdtempSync(join(tmpdir(), 'rk-sa-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('binds every interface inside a pod (service-account token mounted) and loopback elsewhere', () => {
  const sa = join(dir, 'serviceaccount');
  expect(defaultHealthHost(sa)).toBe('127.0.0.1');
  mkdirSync(sa);
  expect(defaultHealthHost(sa)).toBe('127.0.0.1'); // a directory alone is not a mounted token
  writeFileSync(join(sa, 'token'), 'x');
  expect(defaultHealthHost(sa)).toBe('0.0.0.0');
});
