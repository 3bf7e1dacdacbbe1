#!/usr/bin/env bash
# Builds the controller-runtime peer of `make bench` into ~/.cache/reconcilekit/bench-peers/<hash>/ (never
# committed), reused while its .go files, go.mod and go.sum are unchanged. Prints the binary's path on the last line.
# Exit 3 with the reason on stderr when Go is not installed. --print: the path if built, exit 1 otherwise.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hash="$(cat "$here"/*.go "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/reconcilekit/bench-peers/controller-runtime-$hash"
bin="$dir/controller-runtime-peer"
if [[ "${1:-}" == "--print" ]]; then
  [[ -x "$bin" ]] && { echo "$bin"; exit 0; }
  exit 1
fi
if [[ -x "$bin" ]]; then echo "$bin"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "controller-runtime peer skipped: Go is not installed (https://go.dev/dl/)" >&2
  exit 3
fi
mkdir -p "$dir"
echo "building the controller-runtime peer ($(go version | cut -d' ' -f3)) into $dir …" >&2
(cd "$here" && nice -n 10 go build -trimpath -o "$bin.tmp" . && mv "$bin.tmp" "$bin")
echo "$bin"
