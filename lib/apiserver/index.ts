// reconcilekit/apiserver — embedded Kubernetes-compatible API server.
export {};
