# reconcilekit — the two commands a user needs are `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := test
NPM_STAMP := node_modules/.install-stamp

.PHONY: install build lint test test-unit test-e2e demo bench soak docs clean

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

build: install
	npx tsc -p tsconfig.build.json

lint: install
	npx eslint .
	npx prettier --check .
	npx tsc -p tsconfig.json --noEmit

# Every test: unit, integration against the embedded API server, kubectl conformance.
test: install build lint
	npx vitest run

test-unit: install
	npx vitest run

# The conformance suite against the cluster named by KUBECONFIG (must be set).
test-e2e: install build
	@test -n "$$KUBECONFIG" || { echo "set KUBECONFIG to the cluster to test against"; exit 2; }
	RECONCILEKIT_E2E=1 npx vitest run spec/apiserver

clean:
	rm -rf dist coverage node_modules/.install-stamp
