// reconcilekit/testing — helpers for operator authors' tests.
export {};
