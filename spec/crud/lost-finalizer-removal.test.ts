// A finalizer removal the server answered but then forgot (a lost write) must not leave the object stuck
// Terminating: the removed-finalizer memory never suppresses removing our finalizer again.
import type { Server } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeconfig } from '../../lib/apiserver/index.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';
import { forgetfulProxy } from './forgetful-proxy.js';

describe('lost finalizer removal', () => {
  let h: Harness | undefined;
  let fw: Framework<Widget> | undefined;
  let proxy: Server | undefined;
  afterEach(async () => {
    await fw?.stop();
    proxy?.close();
    await h?.close();
  });

  it('removes our finalizer again when the object comes back carrying it; the cleanup runs once', async () => {
    h = await startHarness();
    const forgetful = await forgetfulProxy(h.server.url);
    proxy = forgetful.server;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(buildKubeconfig(forgetful.url));
    const recorder = new RecordingResource();
    fw = new Framework<Widget>({
      name: 'forgetful',
      kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
      healthServer: false,
    });
    await fw.start();
    await h.client.create(widget('lost'));
    await eventually(() => recorder.count('create', 'lost') === 1);
    await h.client.delete(ref('lost'));
    await eventually(() => forgetful.swallowed() === 1, 5000, 'the removal to be swallowed');
    // Something else touches the object: the engine sees it Terminating with our finalizer again.
    await h.client.patch(ref('lost'), { metadata: { annotations: { touched: 'yes' } } }, 'merge');
    await eventually(
      async () => {
        try {
          await h?.client.get(ref('lost'));
          return false;
        } catch {
          return true;
        }
      },
      5000,
      'the object to be gone',
    );
    expect(recorder.count('delete', 'lost')).toBe(1);
  });
});
