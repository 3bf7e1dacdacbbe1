// package.json, tsconfig, Dockerfile, ignore files and README of a scaffolded project.
import type { ProjectNames } from './project-names.js';
import { generateArgs } from './source-templates.js';

/** Dependency ranges written into the new project's package.json. */
export interface DependencyRanges {
  /** How to depend on reconcilekit: a range (`^0.1.0`), a tarball path, a git URL. */
  reconcilekit: string;
  clientNode: string;
  typescript: string;
  typesNode: string;
}

/** The Node.js LTS line the Dockerfile runs on (Active LTS; Node 20 reached end of life in April 2026). */
export const DOCKER_NODE_IMAGE = 'node:24-alpine';

export function packageJsonFile(n: ProjectNames, deps: DependencyRanges): string {
  const pkg = {
    name: n.name,
    version: '0.1.0',
    private: true,
    description: `Kubernetes operator for ${n.kind} (${n.apiVersion}), built on reconcilekit`,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: {
      build: 'tsc -p tsconfig.json',
      test: 'npm run build && node --test dist/test/*.test.js',
      start: 'node dist/src/main.js',
      dev: 'npm run build && reconcilekit dev dist/src/main.js --crds deploy/crd.yaml',
      generate: `npm run build && reconcilekit generate ${generateArgs(n).join(' ')}`,
    },
    dependencies: { '@kubernetes/client-node': deps.clientNode, reconcilekit: deps.reconcilekit },
    devDependencies: { '@types/node': deps.typesNode, typescript: deps.typescript },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export function tsconfigFile(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      sourceMap: true,
      outDir: 'dist',
      rootDir: '.',
    },
    include: ['src', 'test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function gitignoreFile(): string {
  return 'node_modules/\ndist/\n.reconcilekit/\n';
}

export function dockerignoreFile(): string {
  return 'node_modules\ndist\n.reconcilekit\n.git\n';
}

/** The Dockerfile; with `vendored`, reconcilekit's tarball in vendor/ is copied in before npm install. */
export function dockerfile(n: ProjectNames, vendored = false): string {
  return `# ${n.name} image. Build:  docker build -t ${n.name}:0.1.0 .
# deploy/operator.yaml runs image ${n.name}:0.1.0; push it where your cluster pulls from (see README.md).

# --- build: all dependencies, compile, then keep only runtime dependencies ---
FROM ${DOCKER_NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json* ./
${vendored ? 'COPY vendor ./vendor\n' : ''}RUN if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
RUN npm run build && npm prune --omit=dev

# --- runtime: compiled JavaScript and production node_modules, as the image's unprivileged user ---
FROM ${DOCKER_NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node", "dist/src/main.js"]
`;
}

export function readmeFile(n: ProjectNames, sharded?: number): string {
  const deployRow =
    sharded === undefined
      ? 'CRD, namespace, least-privilege RBAC, Deployment (2 replicas, leader election, probes)'
      : `CRD, namespace, least-privilege RBAC (with the shard Leases and labels), Deployment (${String(sharded)} sharded replicas, probes)`;
  const mainRow =
    sharded === undefined
      ? 'the process: logs, health server, leader election, graceful shutdown; exports the operator for `reconcilekit plan`'
      : 'the process: logs, health server, sharding (every replica reconciles its share), graceful shutdown; exports the operator for `reconcilekit plan`';
  return `# ${n.name}

A Kubernetes operator for \`${n.kind}\` (\`${n.apiVersion}\`), built on
[reconcilekit](https://www.npmjs.com/package/reconcilekit): every ${n.kind} gets a ConfigMap
\`<name>-${n.singular}\` holding its \`spec.message\`.

| file | what it is |
|---|---|
| \`src/${n.singular}.ts\` | the ${n.kind} type |
| \`src/${n.singular}-configmap.ts\` | the CRUD resource: current state, desired state, patch, apply |
| \`src/operator.ts\` | the operator (shared by \`main.ts\` and the test) |
| \`src/main.ts\` | ${mainRow} |
| \`test/operator.test.ts\` | a test against the embedded API server (no cluster) |
| \`deploy/\` | ${deployRow} |${
    sharded === undefined
      ? ''
      : `
| \`test/sharding.test.ts\` | two sharded replicas on the embedded API server: each ${n.kind} reconciled by one of them |`
  }
| \`Dockerfile\` | multi-stage, non-root image on ${DOCKER_NODE_IMAGE} |

## Develop

\`\`\`sh
npm install
npm test          # compiles, runs test/ against an embedded API server
npm run dev       # runs the operator on an embedded API server (or KUBECONFIG's cluster) with the CRD installed
\`\`\`

\`npm run dev\` prints a \`kubectl --kubeconfig …\` command; try
\`kubectl apply -f - <<<'{"apiVersion":"${n.apiVersion}","kind":"${n.kind}","metadata":{"name":"hello","namespace":"default"},"spec":{"message":"Hi"}}'\`
and \`kubectl get configmap hello-${n.singular} -o yaml\`. Set \`LOG_LEVEL=debug\` for more detail.

Before deploying a new version, see what it would change (nothing is written; exit 2 when it would change
something):

\`\`\`sh
npm run build && npx reconcilekit plan dist/src/main.js -o diff
\`\`\`

## Deploy to a cluster

\`\`\`sh
docker build -t ${n.name}:0.1.0 .
# kind: kind load docker-image ${n.name}:0.1.0 — a registry: docker tag/push, then change image: in deploy/operator.yaml
kubectl apply -f deploy/namespace.yaml -f deploy/
\`\`\`
`;
}
