// Child process: runs the embedded API server so its CPU and heap are separate from the operators under test.
// Messages out: {type:'listening', url, kubeconfigPath, startMs}, {type:'cpu', cpuMs}, {type:'latency'};
// in: 'cpu', {type:'latency', delayMs} (added latency per request), 'stop'.
import { performance } from 'node:perf_hooks';
import { cpuMs, reply, onDriverMessage } from '../lib/child.js';

const kubeconfigPath = process.argv[2];
// Optional: persist to this file (`--data`: the fsynced journal), to measure durable writes and restarts.
const dataFile = process.argv[3];
if (kubeconfigPath === undefined) throw new Error('usage: apiserver-child <kubeconfig path> [data file]');

const { startApiServer } = await import('reconcilekit/apiserver');
const before = performance.now();
const server = await startApiServer({
  host: '127.0.0.1',
  port: 0,
  ...(dataFile === undefined ? {} : { dataFile }),
});
const startMs = performance.now() - before;
server.writeKubeconfig(kubeconfigPath);
reply({ type: 'listening', url: server.url, kubeconfigPath, startMs });

onDriverMessage(async (message) => {
  if (message.type === 'cpu') reply({ type: 'cpu', cpuMs: cpuMs() });
  if (message.type === 'latency') {
    // Every request from now on waits this long before it is handled (the server's own fault API).
    server.faults.clear();
    const delayMs = message.delayMs as number;
    if (delayMs > 0) server.faults.inject({ delayMs });
    reply({ type: 'latency' });
  }
  if (message.type === 'stop') {
    await server.close();
    process.exit(0);
  }
});
