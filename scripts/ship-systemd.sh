#!/usr/bin/env bash
# Checks systemd/: the unit verifies (systemd-analyze verify, with the built binary at
# /usr/local/bin/cabinet inside a scratch root, so nothing is installed on this machine), its
# exposure stays at or below the README's figure, the sysusers entry parses, and the example
# config file is accepted by the binary.
#   bash scripts/ship-systemd.sh [dist/cabinet]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-dist/cabinet}
max_exposure=${CABINET_MAX_EXPOSURE:-2.0}
root=$(mktemp -d /tmp/cabinet-systemd.XXXXXX)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd" "$root/etc/sysusers.d"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
ln "$bin" "$root/usr/local/bin/cabinet" 2>/dev/null || cp "$bin" "$root/usr/local/bin/cabinet"
cp systemd/cabinet.service "$root/etc/systemd/system/cabinet.service"

echo "-- systemd-analyze verify systemd/cabinet.service"
systemd-analyze verify --root="$root" cabinet.service
if [ -x /usr/local/bin/cabinet ]; then systemd-analyze verify systemd/cabinet.service; fi

echo "-- systemd-analyze verify systemd/cabinet-updater.path and .service (the installer, ExecStart at /usr/bin as packaged)"
mkdir -p "$root/usr/bin"
ln "$bin" "$root/usr/bin/cabinet" 2>/dev/null || cp "$bin" "$root/usr/bin/cabinet"
cp systemd/cabinet-updater.path systemd/cabinet-updater.service "$root/etc/systemd/system/"
# --man=no: Documentation=man:cabinet(1) is the packaged page, not installed in this scratch root.
systemd-analyze verify --man=no --root="$root" cabinet-updater.path cabinet-updater.service
# It runs dpkg as root, so it cannot be confined as the service is; printed, not bounded.
systemd-analyze security --offline=yes --root="$root" cabinet-updater.service 2>&1 | grep -F "Overall exposure" || true

echo "-- systemd-analyze security (offline) must stay <= $max_exposure"
systemd-analyze security --offline=yes --root="$root" --threshold=0 cabinet.service 2>&1 | grep -F "Overall exposure" || true
score=$(systemd-analyze security --offline=yes --root="$root" cabinet.service 2>&1 | sed -n 's/.*Overall exposure level for cabinet.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || { echo "no exposure score" >&2; exit 1; }
awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s <= m) }' || { echo "exposure $score > $max_exposure" >&2; exit 1; }
echo "exposure $score (<= $max_exposure)"

echo "-- systemd/cabinet.sysusers"
cp systemd/cabinet.sysusers "$root/etc/sysusers.d/cabinet.conf"
mkdir -p "$root/etc" && : > "$root/etc/passwd" && : > "$root/etc/group"
systemd-sysusers --dry-run --root="$root" 2>&1 | grep -E "cabinet" || { echo "sysusers entry not understood" >&2; exit 1; }

echo "-- systemd/cabinet.yaml is accepted by the binary"
data=$(mktemp -d /tmp/cabinet-yaml.XXXXXX)
HOME="$data" "$bin" migrate --config systemd/cabinet.yaml --data-dir "$data/data" >/dev/null
rm -rf "$data"
echo "ok"
