// Whether this run targets the real kube-apiserver of `make test-real` (scripts/test-real.mjs sets both).
export const REAL_BACKEND =
  process.env.RECONCILEKIT_TEST_BACKEND === 'kubeconfig' && (process.env.KUBECONFIG ?? '') !== '';
