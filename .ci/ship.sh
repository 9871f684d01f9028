#!/usr/bin/env bash
# Shipping checks (run by .ci/run after the test suite): build both single executables and their
# Debian packages, install check of the x64 one in an empty directory, Modbus RTU from the binary,
# the arm64 one under qemu, the systemd unit, the packages (lintian, dpkg -i, upgrade, remove,
# purge), the fleet's self-update end to end (scripts/ship-fleet-update.mjs), and the README's
# measured figures. Bounded in time; every process it
# starts is stopped by scripts/ship-check.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI=true
# The project's Node (the `node` development dependency, 24.21.0) for the build and the checks,
# as npm's scripts get it: the machine's own node may be older.
export PATH="$PWD/node_modules/.bin:$PATH"

step() { echo "== ship: $*"; }
need() { command -v "$1" >/dev/null || { echo "ship: $1 missing; run .ci/system-packages.sh" >&2; exit 1; }; }
for tool in socat qemu-aarch64 aarch64-linux-gnu-strip systemd-analyze python3 dpkg-deb lintian; do need "$tool"; done

step "build dist/cabinet, dist/cabinet-arm64 and their .deb packages (Node 24 from the npm registry, the addons' shipped Node-API prebuilds)"
start=$(date +%s)
timeout 1200 node build.mjs --arch all
echo "build took $(( $(date +%s) - start )) s"
ls -l dist/cabinet dist/cabinet-arm64 dist/cabinet_*.deb

step "x64 binary: its own tests (test/binary: the read worker thread inside the executable)"
timeout 600 npx vitest run --config vitest.binary.config.ts

step "x64 binary: install check in an empty directory (no node_modules, no source)"
timeout 300 node scripts/ship-check.mjs install --binary dist/cabinet

step "arm64 binary under qemu-aarch64: /health and a row"
timeout 600 node scripts/ship-check.mjs qemu --binary dist/cabinet-arm64

step "systemd unit"
timeout 120 bash scripts/ship-systemd.sh dist/cabinet

step "Debian packages: contents, lintian, dpkg -i of the amd64 one, start, upgrade, remove, purge"
timeout 900 bash scripts/ship-deb.sh

step "fleet self-update end to end: a master and two boxes (dpkg in sandboxes), a second version built with --version"
version=$(node -p 'require("./package.json").version')
next=$(node -p 'const [a, b, c] = require("./package.json").version.split(".").map(Number); `${a}.${b}.${c + 1}`')
start=$(date +%s)
timeout 900 node build.mjs --arch x64 --version "$next" --no-smoke
echo "the build of $next took $(( $(date +%s) - start )) s"
timeout 1200 node scripts/ship-fleet-update.mjs --base "dist/cabinet_${version}_amd64.deb" --next "dist/cabinet_${next}_amd64.deb"
rm -f "dist/cabinet-$next" "dist/cabinet_${next}_amd64.deb"

step "figures for the README (binary size, spawn-to-/ready, idle RSS)"
timeout 300 node scripts/measure-binary.mjs --runs 5

echo "== ship: all shipping checks passed"
