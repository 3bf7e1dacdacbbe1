import { describe, expect, it } from 'vitest';
import { startApiServer } from '../../../lib/apiserver/index.js';
import { recordFigures } from '../support/figures.js';

describe('soak: regex-bomb CRD', () => {
  it('`^(a+)+$` against 100 kB strings, 50 times: every answer and /healthz stay fast', async () => {
    const server = await startApiServer();
    try {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'bombs.bomb.example.com' },
        spec: {
          group: 'bomb.example.com',
          scope: 'Namespaced',
          names: { plural: 'bombs', singular: 'bomb', kind: 'Bomb' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { w: { type: 'string', pattern: '^(a+)+$' } } },
                  },
                },
              },
            },
          ],
        },
      };
      const post = (path: string, body: unknown) =>
        fetch(server.url + path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
      let maxMs = 0;
      for (let i = 0; i < 50; i++) {
        const started = performance.now();
        const res = await post('/apis/bomb.example.com/v1/namespaces/default/bombs', {
          apiVersion: 'bomb.example.com/v1',
          kind: 'Bomb',
          metadata: { name: `b-${i}` },
          spec: { w: `${'a'.repeat(100_000)}b` },
        });
        expect(res.status).toBe(422);
        maxMs = Math.max(maxMs, performance.now() - started);
      }
      recordFigures('regex-bomb', { requests: 50, inputChars: 100_001, maxAnswerMs: Math.round(maxMs) });
      expect(maxMs).toBeLessThan(2000);
    } finally {
      await server.close();
    }
  });
});
