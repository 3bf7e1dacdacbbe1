// The suites that `make test-real` runs against one real kube-apiserver (scripts/test-real.mjs starts it
// and sets KUBECONFIG, RECONCILEKIT_E2E=1 and RECONCILEKIT_TEST_BACKEND=kubeconfig). Files run one at a
// time: they share the cluster. Specs that need the embedded server (fault injection, its internals, a
// fresh server per test) are not listed, or skip themselves by name with `REAL_BACKEND` — see
// docs/testing.md for the list and why.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'spec/apiserver/kubectl-conformance.test.ts',
      'spec/apiserver/client-node.test.ts',
      'spec/apiserver/fidelity/apply-list-map.test.ts',
      'spec/apiserver/fidelity/crd-status-reset.test.ts',
      'spec/apiserver/fidelity/crd-nulls-versions.test.ts',
      'spec/apiserver/fidelity/crd-deprecation.test.ts',
      'spec/apiserver/fidelity/builtin-decode-errors.test.ts',
      'spec/apiserver/fidelity/builtin-schemas.test.ts',
      'spec/apiserver/fidelity/built-in-kinds.test.ts',
      'spec/apiserver/fidelity/cel-validation.test.ts',
      'spec/apiserver/fidelity/dry-run-values.test.ts',
      'spec/apiserver/fidelity/pod-update.test.ts',
      'spec/apiserver/fidelity/operator-kinds.test.ts',
      'spec/apiserver/fidelity/crd-explain.test.ts',
      'spec/apiserver/fidelity/built-in-tables.test.ts',
      'spec/apiserver/fidelity/namespace-controllers.test.ts',
      'spec/apiserver/fidelity/status-messages.test.ts',
      'spec/apiserver/fidelity/admission-webhooks.test.ts',
      'spec/apiserver/fidelity/conversion-webhook.test.ts',
      'spec/apiserver/fidelity/partial-metadata.test.ts',
      'spec/apiserver/fidelity/differential-findings.test.ts',
      // The webhook server registered by startTestEnvironment({ webhooks }) and an Operator, called by kube-apiserver.
      'spec/webhooks/webhook-host.test.ts',
      'spec/webhooks/match-conditions.test.ts',
      'spec/real/**/*.test.ts',
      // `reconcilekit plan`'s dry-run proxy holding kube-apiserver's own credentials; its bypass specs (issue 27).
      'spec/cli/plan-cli.test.ts',
      // Kinds: the CRD a kind generates, accepted and enforced by kube-apiserver as by the embedded server.
      'spec/kinds/kind-crd-behaviour.test.ts',
      'spec/testing/kube-apiserver-backend.test.ts',
      // The example operators through reconcilekit/testing, whose startTestEnvironment follows
      // RECONCILEKIT_TEST_BACKEND=kubeconfig: each test environment gets its own namespace on the shared server.
      'spec/examples/greeting-operator/*.test.ts',
      'spec/examples/greeting-controller/*.test.ts',
      'spec/examples/informer-controller/*.test.ts',
      'spec/examples/phases-operator/*.test.ts',
      'spec/declarative/operator-group.test.ts',
      'spec/declarative/view-pipelines.test.ts',
      // The engine's integration specs through spec/crud/harness.ts, which on this backend gives each
      // file a Widget group of its own and cleans up after each test; the tests that need the embedded
      // server (fault injection) skip themselves by name.
      'spec/crud/framework-flow.test.ts',
      'spec/crud/framework-finalizers.test.ts',
      'spec/crud/same-name-recreate.test.ts',
      'spec/crud/framework-error-condition.test.ts',
      'spec/crud/framework-watch.test.ts',
      'spec/crud/framework-watches-predicates.test.ts',
      'spec/crud/hung-reconcile.test.ts',
      'spec/crud/framework-leader.test.ts',
      'spec/crud/burst-coalescing.test.ts',
      'spec/crud/framework-drop-in.test.ts',
      'spec/crud/own-status-write.test.ts',
      // The engine's own specs that need a watch (a scripted pass body, no front end).
      'spec/engine/controller-core-watch.test.ts',
      'spec/crud/cached-reads.test.ts',
      'spec/watch/cached-reads.test.ts',
      'spec/watch/managed-fields.test.ts',
      'spec/watch/metadata-only.test.ts',
      'spec/watch/watch-list.test.ts',
      'spec/watch/namespaces.test.ts',
      'spec/controller/controller.test.ts',
      'spec/controller/controller-bad-input.test.ts',
      'spec/informer-controller/*.test.ts',
      // The reliability scenarios that need no fault injection and no server restart, through
      // spec/reliability/support/cluster.ts (a Gadget group of its own, cleaned up after each scenario).
      'spec/reliability/bad-input.test.ts',
      'spec/reliability/failover.test.ts',
      'spec/reliability/crash-safety.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
