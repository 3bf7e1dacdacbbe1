// deploy/: the operator's namespace and Deployment of a scaffolded project (the CRD, RBAC and chart come from
// the generator: init/scaffold-manifests.ts). One name for namespace, ServiceAccount, Lease and image;
// probes hit HEALTH_ADDRESS's port.
import type { ProjectNames } from './project-names.js';
import { WEBHOOK_PORT } from './webhook-templates.js';

/** Port of /healthz, /readyz and /metrics in the pod. */
export const HEALTH_PORT = 8080;

export function namespaceFile(n: ProjectNames): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${n.name}
`;
}

/**
 * deploy/operator.yaml. `sharded`: that many replicas, each reconciling its share (POD_NAME its identity on
 * the ring, POD_NAMESPACE the namespace of the shard Leases); otherwise two replicas electing a leader.
 */
export function deploymentFile(n: ProjectNames, webhooks = false, sharded?: number): string {
  const header =
    sharded !== undefined
      ? `# ${String(sharded)} replicas, each reconciling its share of the ${n.plural} (sharding: a Lease per replica in this
# namespace, POD_NAME its identity on the ring; docs/sharding.md). Scale with kubectl scale: a new replica
# takes about 1/N of the objects, a stopped one hands its objects over. Probes and metrics on the health server.`
      : webhooks
        ? `# One replica: its webhook server signs its certificate with a CA of its own, which it writes into the
# webhook configurations — a second replica would overwrite it with another. For several replicas, mount
# cert-manager's certificate instead (docs/webhooks.md). Probes and metrics on the health server.`
        : '# Two replicas, one leader (a Lease in this namespace); probes and metrics on the health server.';
  const webhookPort = webhooks
    ? `
            - name: webhooks
              containerPort: ${WEBHOOK_PORT}`
    : '';
  return `${header}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${n.name}
  namespace: ${n.name}
  labels:
    app.kubernetes.io/name: ${n.name}
spec:
  replicas: ${sharded ?? (webhooks ? 1 : 2)}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${n.name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${n.name}
    spec:
      serviceAccountName: ${n.name}
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: operator
          image: ${n.name}:0.1.0
          env:
            - name: HEALTH_ADDRESS
              value: 0.0.0.0:${HEALTH_PORT}
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: LOG_LEVEL
              value: info
          ports:
            - name: health
              containerPort: ${HEALTH_PORT}${webhookPort}
          livenessProbe:
            httpGet:
              path: /healthz
              port: health
            initialDelaySeconds: 5
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: /readyz
              port: health
            periodSeconds: 5
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            limits:
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
      # SIGTERM: stop taking work, finish in-flight reconciles, ${sharded !== undefined ? 'hand the objects over, release the shard Lease' : 'release the Lease'} — within 30 s.
      terminationGracePeriodSeconds: 40
`;
}
