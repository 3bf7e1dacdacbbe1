#!/usr/bin/env bash
# Type-checks the published declaration files (dist/lib, as `make build` leaves them) with TypeScript 7, the
# native compiler, while the repository itself builds and lints with TypeScript 6 (typescript-eslint and
# typedoc accept TypeScript < 6.1 only). npm's typescript@7 is installed on first use into
# ~/.cache/reconcilekit/typescript7/. skipLibCheck is off, so every .d.ts of the entry points (package.json "exports") and of
# what they import (client-node, prom-client, winston, …) is checked.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/reconcilekit/typescript7"
tsc="$prefix/node_modules/typescript/bin/tsc"
if [[ ! -x "$tsc" ]]; then
  echo "[typecheck-ts7] installing typescript@7 into $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error typescript@7 >&2
fi
[[ -f "$root/dist/lib/index.d.ts" ]] || { echo "no build in dist/lib: run make build first" >&2; exit 1; }
# Every entry point's "types" in package.json "exports", relative to dist/.
files="$(node -e '
  const pkg = require(process.argv[1]);
  const types = Object.values(pkg.exports).flatMap((e) => (typeof e === "object" && e.types ? [e.types] : []));
  console.log(JSON.stringify(types.map((t) => t.replace(/^\.\/dist\//, ""))));
' "$root/package.json")"
config="$root/dist/tsconfig.ts7.json"
trap 'rm -f "$config"' EXIT
cat >"$config" <<JSON
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "types": ["node"],
    "strict": true,
    "skipLibCheck": false,
    "noEmit": true
  },
  "files": $files
}
JSON
echo "type-checking dist/lib's public .d.ts with TypeScript $("$tsc" --version | sed 's/^Version //')"
"$tsc" -p "$config"
echo "TypeScript 7: the public types check"
