// Workload 16: the admission round trip. A validating and a mutating webhook for Website (a defaulter that
// fills in spec.replicas and spec.content, a validator that requires spec.domain and caps replicas), written
// once with reconcilekit (bench/children/webhook-child.ts, as docs/webhooks.md teaches) and once with
// controller-runtime's webhook package (the Go peer's --webhook-port mode, as kubebuilder scaffolds it).
// Each serves on loopback TLS with the same certificate; the driver registers both webhooks with
// failurePolicy Fail, scoped to the run's namespace, and times Website creates through the API server
// (embedded, and the real kube-apiserver when the bench has one) with 1 and 8 concurrent clients. A row
// without webhooks shows what the API server itself costs. Systems run interleaved, in alternating order.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { WebhookCertificateIssuer } from 'reconcilekit/webhooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { Child } from '../lib/child.js';
import { controllerRuntimePeer } from '../lib/go-peer.js';
import { isRestStatus, RestError } from '../lib/kube-rest.js';
import { progress } from '../lib/progress.js';
import { percentile, summarise, type Summary } from '../lib/stats.js';
import { markdownTable, type TableRow } from '../lib/table.js';
import { clusterTarget, embeddedTarget, type Target } from '../lib/target.js';
import {
  WEBSITE_API_VERSION,
  WEBSITE_GROUP,
  WEBSITE_PLURAL,
  WEBSITE_VERSION,
  type Website,
} from '../lib/website.js';

type System = 'none' | 'reconcilekit' | 'controller-runtime';
const CONFIGURATION = 'bench-admission';

/** A running webhook server of one system. */
interface WebhookProcess {
  /** Paths of the defaulting and the validating webhook. */
  mutatePath: string;
  validatePath: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

async function startReconcilekit(
  certDir: string,
  port: number,
  kubeconfigPath: string,
): Promise<WebhookProcess> {
  const child = Child.fork('children/webhook-child.js', [certDir, String(port)], {
    env: { KUBECONFIG: kubeconfigPath },
  });
  const ready = await child.next('ready', 60_000);
  const [mutatePath, validatePath] = ready.paths as string[];
  if (mutatePath === undefined || validatePath === undefined) throw new Error('webhook child: no paths');
  return {
    mutatePath,
    validatePath,
    stop: async () => {
      await child.stop();
    },
  };
}

async function startControllerRuntime(
  binary: string,
  certDir: string,
  port: number,
  kubeconfigPath: string,
): Promise<WebhookProcess> {
  const proc: ChildProcess = spawn(binary, [`--webhook-port=${String(port)}`, `--cert-dir=${certDir}`], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error('controller-runtime webhook peer: not ready in 60 s'));
    }, 60_000);
    lines.on('line', (line) => {
      if (line.startsWith('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`controller-runtime webhook peer exited with ${String(code)}`));
    });
  });
  // The paths controller-runtime's builder derives from the group, version and kind.
  const gvk = `${WEBSITE_GROUP.replaceAll('.', '-')}-${WEBSITE_VERSION}-website`;
  return {
    mutatePath: `/mutate-${gvk}`,
    validatePath: `/validate-${gvk}`,
    stop: async () => {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.stdin?.end('stop\n');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      proc.kill('SIGKILL');
    },
  };
}

/** The two configurations pointing at `base`, matching Website create/update in `namespace` only. */
function configurations(base: string, hooks: WebhookProcess, caBundle: string, namespace: string): object[] {
  const common = {
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
    rules: [
      {
        apiGroups: [WEBSITE_GROUP],
        apiVersions: [WEBSITE_VERSION],
        operations: ['CREATE', 'UPDATE'],
        resources: [WEBSITE_PLURAL],
      },
    ],
  };
  const clientConfig = (path: string) => ({
    url: `${base}${path}`,
    caBundle: Buffer.from(caBundle).toString('base64'),
  });
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: CONFIGURATION },
      webhooks: [
        {
          name: 'default.websites.bench.reconcilekit.io',
          clientConfig: clientConfig(hooks.mutatePath),
          ...common,
        },
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: CONFIGURATION },
      webhooks: [
        {
          name: 'validate.websites.bench.reconcilekit.io',
          clientConfig: clientConfig(hooks.validatePath),
          ...common,
        },
      ],
    },
  ];
}

const CONFIG_PATHS = [
  '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
];

async function unregister(target: Target): Promise<void> {
  for (const path of CONFIG_PATHS) {
    await target.rest.request('DELETE', `${path}/${CONFIGURATION}`).catch((e: unknown) => {
      if (!isRestStatus(e, 404)) throw e;
    });
  }
}

let counter = 0;
function site(namespace: string, domain = 'example.com'): Website {
  counter += 1;
  return {
    apiVersion: WEBSITE_API_VERSION,
    kind: 'Website',
    metadata: { name: `adm-${counter.toString(36)}`, namespace },
    spec: { domain },
  };
}

/** Creates until a Website comes back defaulted (and an invalid one is refused) or `ms` pass. */
async function waitEffective(target: Target, path: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const created = await target.rest.request<Website>('POST', path, site(target.namespace));
    let refused = false;
    if (created.spec?.replicas === 1) {
      refused = await target.rest.request('POST', path, site(target.namespace, '')).then(
        () => false,
        (e: unknown) => e instanceof RestError && e.status === 422,
      );
    }
    if (refused) return;
    if (Date.now() > until) throw new Error('the webhooks did not take effect');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Times `total` creates by `clients` concurrent loops; returns each one's ms. Counts undefaulted answers. */
async function timeCreates(
  target: Target,
  path: string,
  clients: number,
  total: number,
  expectDefaulted: boolean,
): Promise<{ ms: number[]; wrong: number }> {
  const ms: number[] = [];
  let wrong = 0;
  let left = total;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left > 0) {
        left -= 1;
        const started = performance.now();
        const created = await target.rest.request<Website>('POST', path, site(target.namespace));
        ms.push(performance.now() - started);
        if (expectDefaulted !== (created.spec?.replicas === 1)) wrong += 1;
      }
    }),
  );
  return { ms, wrong };
}

interface Cell {
  p50: number[];
  p99: number[];
  perS: number[];
}

/** Workload 16 (admission round trip: reconcilekit vs controller-runtime webhooks). */
export async function runAdmission(ctx: BenchContext): Promise<WorkloadResult> {
  const rounds = ctx.runsOverride ?? (ctx.mode === 'full' ? 3 : 1);
  const creates = ctx.mode === 'full' ? 400 : ctx.mode === 'quick' ? 200 : 40;
  const binary = controllerRuntimePeer();
  const systems: System[] = [
    'none',
    'reconcilekit',
    ...(binary === undefined ? [] : ['controller-runtime' as const]),
  ];
  const certDir = mkdtempSync(join(tmpdir(), 'rk-bench-admission-'));
  const issuer = new WebhookCertificateIssuer('bench-admission-ca');
  const serving = issuer.issue({
    commonName: '127.0.0.1',
    hosts: ['127.0.0.1', 'localhost'],
    validityMs: 24 * 3600 * 1000,
  });
  writeFileSync(join(certDir, 'tls.crt'), serving.cert, { mode: 0o600 });
  writeFileSync(join(certDir, 'tls.key'), serving.key, { mode: 0o600 });
  const backends: { name: string; open: () => Promise<Target> }[] = [
    { name: 'embedded', open: () => embeddedTarget() },
  ];
  const cluster = ctx.clusterKubeconfig;
  if (cluster !== undefined) {
    backends.push({ name: ctx.clusterTitle ?? 'cluster', open: () => clusterTarget(cluster) });
  }
  const results: Record<string, Record<string, Cell>> = {};
  const loads: string[] = [];
  let wrongAnswers = 0;
  try {
    for (const backend of backends) {
      const target = await backend.open();
      const path = `/apis/${WEBSITE_GROUP}/${WEBSITE_VERSION}/namespaces/${target.namespace}/${WEBSITE_PLURAL}`;
      try {
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? systems : [...systems].reverse();
          for (const system of order) {
            loads.push(os.loadavg()[0]!.toFixed(1));
            let hooks: WebhookProcess | undefined;
            if (system !== 'none') {
              const port = await freePort();
              hooks =
                system === 'reconcilekit'
                  ? await startReconcilekit(certDir, port, target.kubeconfigPath)
                  : await startControllerRuntime(binary!, certDir, port, target.kubeconfigPath);
              for (const config of configurations(
                `https://127.0.0.1:${String(port)}`,
                hooks,
                issuer.cert,
                target.namespace,
              )) {
                const kind = (config as { kind: string }).kind;
                await target.rest.request('POST', CONFIG_PATHS[kind.startsWith('Mutating') ? 0 : 1]!, config);
              }
              await waitEffective(target, path, 30_000);
            }
            try {
              for (const clients of [1, 8]) {
                await timeCreates(target, path, clients, Math.ceil(creates / 10), system !== 'none'); // warm-up
                const started = performance.now();
                const { ms, wrong } = await timeCreates(target, path, clients, creates, system !== 'none');
                const seconds = (performance.now() - started) / 1000;
                wrongAnswers += wrong;
                const key = `${backend.name}|${String(clients)}`;
                const cell = ((results[key] ??= {})[system] ??= { p50: [], p99: [], perS: [] });
                cell.p50.push(percentile(ms, 50));
                cell.p99.push(percentile(ms, 99));
                cell.perS.push(creates / seconds);
                progress(
                  `workload 16: ${backend.name}, ${system}, ${String(clients)} client(s): p50 ${percentile(ms, 50).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms (load ${os.loadavg()[0]!.toFixed(1)})`,
                );
              }
            } finally {
              if (hooks !== undefined) {
                await unregister(target);
                await hooks.stop();
              }
            }
          }
        }
      } finally {
        await unregister(target).catch(() => undefined);
        await target.close();
      }
    }
  } finally {
    rmSync(certDir, { recursive: true, force: true });
  }

  const columns = [
    { heading: 'p50 ms', digits: 2 },
    { heading: 'p99 ms', digits: 2 },
    { heading: 'creates/s', digits: 0 },
    { heading: 'p50 − no webhooks, ms', digits: 2 },
  ];
  const sections: string[] = [];
  const targets: TargetCheck[] = [];
  for (const [key, bySystem] of Object.entries(results)) {
    const [backend, clients] = key.split('|');
    const base = summarise(bySystem.none?.p50 ?? []).median;
    const rows: TableRow[] = systems
      .filter((s) => bySystem[s] !== undefined)
      .map((s) => {
        const cell = bySystem[s]!;
        const p50: Summary = summarise(cell.p50);
        return {
          system: s === 'none' ? 'no webhooks (the API server alone)' : s,
          cells: [p50, summarise(cell.p99), summarise(cell.perS), s === 'none' ? '—' : p50.median - base],
        };
      });
    sections.push(
      `**${backend ?? ''}, ${clients ?? ''} concurrent client(s)** (${String(creates)} creates per run)\n\n${markdownTable(columns, rows)}`,
    );
    const ours = summarise(bySystem.reconcilekit?.p50 ?? []).median;
    const theirs = summarise(bySystem['controller-runtime']?.p50 ?? []).median;
    if (Number.isFinite(theirs)) {
      targets.push({
        target: `admission round trip p50 on ${backend ?? ''} at ${clients ?? ''} client(s) no slower than controller-runtime's`,
        actual: `${ours.toFixed(2)} vs ${theirs.toFixed(2)} ms (${(ours / theirs).toFixed(2)}×)`,
        met: ours <= theirs * 1.1,
      });
    }
  }
  targets.push({
    target: 'every create through the webhooks came back defaulted (and none without them)',
    actual: `${String(wrongAnswers)} wrong answers`,
    met: wrongAnswers === 0,
  });
  const markdown = [
    `A Website create through a mutating (defaulter) and a validating webhook, \`failurePolicy: Fail\`, both on loopback TLS; ${String(rounds)} interleaved round(s) per system, medians (min–max) of each run's p50 and p99. Load average during the runs: ${loads.join(', ')}.`,
    binary === undefined ? '\nThe controller-runtime peer was skipped (see above).' : '',
    ...sections.map((s) => `\n${s}`),
    `\n${targetLines(targets)}`,
  ].join('\n');
  return {
    id: 16,
    title: 'admission round trip (webhooks)',
    markdown,
    targets,
    raw: { rounds, creates, results, loads },
  };
}
