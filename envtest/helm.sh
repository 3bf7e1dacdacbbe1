#!/usr/bin/env bash
# Builds the helm CLI from the Go module proxy (helm.sh/helm/v3/cmd/helm at HELM_VERSION) into a cache
# directory outside the tree, ~/.cache/reconcilekit/helm/<version>/helm (RECONCILEKIT_HELM_CACHE overrides
# the root), and reuses it when present. `make test-real` uses it to render the generated Helm chart.
# Prints the binary's path on the last line of stdout.
#   envtest/helm.sh            build or reuse
#   envtest/helm.sh --print    print the path only (no build; exit 1 when the binary is missing)
set -euo pipefail
HELM_VERSION=v3.22.0
root="${RECONCILEKIT_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reconcilekit/helm}"
dir="$root/$HELM_VERSION"
bin="$dir/helm"

log() { printf '[helm] %s\n' "$*" >&2; }

if [[ "${1:-}" == "--print" ]]; then
  [[ -x "$bin" ]] || exit 1
  echo "$bin"
  exit 0
fi

if [[ -x "$bin" ]]; then
  log "reusing helm $HELM_VERSION in $dir"
  echo "$bin"
  exit 0
fi

command -v go >/dev/null || { log "go is not on PATH: install Go 1.24 or newer to build helm"; exit 2; }
start=$SECONDS
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
log "building helm $HELM_VERSION from the Go module proxy (~5-10 min cold on 2 cores) …"
CGO_ENABLED=0 GOBIN="$dir.tmp" nice -n 10 go install -trimpath -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
rm -rf "$dir" && mv "$dir.tmp" "$dir"
log "done in $((SECONDS - start)) s: $bin"
echo "$bin"
