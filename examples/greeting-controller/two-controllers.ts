// Two front ends in one process under one Operator (docs/operator.md): shared watches, registry, Lease.
import { Controller, Framework, Operator, ResourceSet, runUntilSignal, type KubeObject } from 'reconcilekit';

const operator = new Operator({
  healthServer: { port: 8080 }, // one /healthz, /readyz and /metrics for both
  leaderElection: { leaseName: 'my-operator', namespace: 'default' }, // one Lease gates both
});

operator.addController(
  new Controller<KubeObject>({
    name: 'widgets',
    resource: { apiVersion: 'example.com/v1', kind: 'Widget' },
    reconciler: (ctx, req) => {
      ctx.logger.info('reconciling', { key: req.key, action: req.action });
    },
  }),
);
operator.addController(
  new Framework<KubeObject>({
    name: 'widget-audit',
    resource: { apiVersion: 'example.com/v1', kind: 'Widget' }, // the same watch as above: shared
    finalizer: false,
    resourceSets: [
      new ResourceSet<KubeObject>({
        resources: [
          {
            name: 'audit',
            ensureCreated: (ctx, obj) => {
              ctx.logger.info('seen', { name: obj.metadata?.name });
              return Promise.resolve();
            },
            ensureDeleted: (ctx, obj) => {
              ctx.logger.info('gone', { name: obj.metadata?.name });
              return Promise.resolve();
            },
          },
        ],
      }),
    ],
  }),
);

await runUntilSignal(operator);
