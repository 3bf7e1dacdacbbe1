#!/usr/bin/env bash
# Installs what `make test-browser` needs: Debian's chromium (headless, driven by playwright-core over CDP;
# playwright-core is a devDependency and downloads no browser of its own). Prints the browser's path last.
# Usage: scripts/install-browser.sh   (root, or sudo available; a no-op when chromium is already there)
set -euo pipefail
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ ! -x "$browser" ]]; then
  echo "installing Debian's chromium (apt-get)" >&2
  sudo=""
  [[ "$(id -u)" == "0" ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
fi
[[ -x "$browser" ]] || { echo "chromium is not at $browser after the install; set CHROMIUM_PATH" >&2; exit 1; }
"$browser" --version >&2
echo "$browser"
