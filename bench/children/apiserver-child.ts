// Child process: runs the embedded API server so its CPU and heap are separate from the operators under test.
// Messages out: {type:'listening', url, kubeconfigPath, startMs}; in: {type:'stop'}.
import { performance } from 'node:perf_hooks';
import { reply, onDriverMessage } from '../lib/child.js';

const kubeconfigPath = process.argv[2];
if (kubeconfigPath === undefined) throw new Error('usage: apiserver-child <kubeconfig path>');

const { startApiServer } = await import('reconcilekit/apiserver');
const before = performance.now();
const server = await startApiServer({ host: '127.0.0.1', port: 0 });
const startMs = performance.now() - before;
server.writeKubeconfig(kubeconfigPath);
reply({ type: 'listening', url: server.url, kubeconfigPath, startMs });

onDriverMessage(async (message) => {
  if (message.type === 'stop') {
    await server.close();
    process.exit(0);
  }
});
