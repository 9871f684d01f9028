#!/usr/bin/env bash
# Checks the Debian packages on this machine (root, no systemd as PID 1, as in CI):
#  1. both packages: metadata, contents, conffile, architecture of the executable; lintian
#     with no error or warning (the overrides in systemd/debian/lintian-overrides say why);
#  2. dpkg -i of the amd64 package: user, directories, config owner, the unit enabled but nothing
#     started; `cabinet version`; a start from the installed paths with the packaged config (as
#     user cabinet): the first-run hint in the log and in auth/passkey/status, the hint's command
#     run as printed, then a row written;
#  3. upgrade to a higher version: an edited conffile kept, a backup taken by the version installed
#     before it (preinst; the newest 5 kept),
#     the row still there; that backup restored by root with the service stopped (refused while
#     it runs), the files given back to user cabinet, the service starting on it;
#  4. dpkg -r: binary and unit gone, data, backups and config kept; dpkg -P: all of it gone.
#   bash scripts/ship-deb.sh   (after npm run build -- --arch all)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "ship-deb: needs root (it installs the package)" >&2; exit 1; }
for tool in dpkg-deb lintian runuser curl; do command -v "$tool" >/dev/null || { echo "ship-deb: $tool missing; run .ci/system-packages.sh" >&2; exit 1; }; done

version=$(node -p 'require("./package.json").version')
deb_amd64=dist/cabinet_${version}_amd64.deb
deb_arm64=dist/cabinet_${version}_arm64.deb
work=$(mktemp -d /tmp/cabinet-deb.XXXXXX)
server_pid=""
fail() { echo "ship-deb: FAILED: $*" >&2; exit 1; }
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  if dpkg -s cabinet >/dev/null 2>&1 || dpkg -l cabinet 2>/dev/null | grep -q '^rc'; then dpkg -P cabinet >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# timeout(1) sends TERM: exit through the EXIT trap, so the package never stays installed.
trap 'exit 143' TERM INT
# A leftover from an interrupted run would hide what this install does.
if dpkg -l cabinet 2>/dev/null | grep -qE '^(ii|rc|iU|iF)'; then dpkg -P cabinet >/dev/null; fi
[ ! -e /var/lib/cabinet ] || fail "/var/lib/cabinet exists before the install (not from this package); refusing to touch it"

echo "-- package metadata and contents"
for pair in "amd64:$deb_amd64:3e" "arm64:$deb_arm64:b7"; do
  IFS=: read -r arch deb machine <<<"$pair"
  [ -f "$deb" ] || fail "$deb missing (npm run build -- --arch all)"
  [ "$(dpkg-deb -f "$deb" Package)" = cabinet ] || fail "$deb: Package"
  [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$deb: Version is not package.json's $version"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$deb: Architecture"
  [ "$(dpkg-deb -f "$deb" Maintainer)" = "$(node -p 'require("./package.json").author')" ] || fail "$deb: Maintainer is not package.json's author"
  [ -z "$(dpkg-deb -f "$deb" Homepage)" ] || [ "$(dpkg-deb -f "$deb" Homepage)" = "$(node -p 'require("./package.json").homepage')" ] || fail "$deb: Homepage is not package.json's homepage"
  dpkg-deb -f "$deb" Depends | grep -q 'libc6 (>= 2.28)' || fail "$deb: Depends lacks libc6"
  [ "$(dpkg-deb -I "$deb" conffiles)" = /etc/cabinet/cabinet.yaml ] || fail "$deb: conffiles"
  dpkg-deb -c "$deb" | awk '{print $1, $2, $6}' > "$work/contents-$arch"
  for want in "-rwxr-xr-x root/root ./usr/bin/cabinet" "-rw-r--r-- root/root ./lib/systemd/system/cabinet.service" \
              "-rw-r--r-- root/root ./usr/lib/sysusers.d/cabinet.conf" "-rw-r----- root/root ./etc/cabinet/cabinet.yaml" \
              "-rw-r--r-- root/root ./usr/share/doc/cabinet/copyright" "-rw-r--r-- root/root ./usr/share/man/man1/cabinet.1.gz" \
              "-rw-r--r-- root/root ./lib/systemd/system/cabinet-updater.path" "-rw-r--r-- root/root ./lib/systemd/system/cabinet-updater.service"; do
    grep -qxF -e "$want" "$work/contents-$arch" || fail "$deb lacks: $want"
  done
  dpkg-deb -x "$deb" "$work/x-$arch"
  grep -qx 'ExecStart=/usr/bin/cabinet serve --config /etc/cabinet/cabinet.yaml' "$work/x-$arch/lib/systemd/system/cabinet.service" || fail "$deb: unit ExecStart"
  grep -qx 'ExecStartPre=-+/usr/bin/cabinet storage shm-mount --config /etc/cabinet/cabinet.yaml' "$work/x-$arch/lib/systemd/system/cabinet.service" || fail "$deb: unit ExecStartPre (shm-mount)"
  grep -qx 'ExecStopPost=-+/usr/bin/cabinet storage shm-unmount --config /etc/cabinet/cabinet.yaml' "$work/x-$arch/lib/systemd/system/cabinet.service" || fail "$deb: unit ExecStopPost (shm-unmount)"
  if grep -q '^Exec.*/usr/local/bin' "$work/x-$arch/lib/systemd/system/cabinet.service"; then fail "$deb: a unit command still at /usr/local/bin"; fi
  cmp -s "$work/x-$arch/etc/cabinet/cabinet.yaml" systemd/cabinet.yaml || fail "$deb: the conffile is not systemd/cabinet.yaml"
  got=$(od -An -tx1 -j18 -N1 "$work/x-$arch/usr/bin/cabinet" | tr -d ' ')
  rm -rf "$work/x-$arch"
  [ "$got" = "$machine" ] || fail "$deb: /usr/bin/cabinet has ELF machine 0x$got, expected 0x$machine"
  echo "$deb: $(du -h "$deb" | cut -f1), Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB, Depends: $(dpkg-deb -f "$deb" Depends)"
done

echo "-- lintian (both packages at once; errors and warnings fail)"
lintian --fail-on error,warning --suppress-tags spelling-error-in-binary "$deb_amd64" > "$work/lintian-amd64" 2>&1 & l1=$!
lintian --fail-on error,warning --suppress-tags spelling-error-in-binary "$deb_arm64" > "$work/lintian-arm64" 2>&1 & l2=$!
lint_ok=yes
wait "$l1" || lint_ok=""
wait "$l2" || lint_ok=""
grep -v 'running with root privileges' "$work/lintian-amd64" "$work/lintian-arm64" || true
[ -n "$lint_ok" ] || fail "lintian"

# Starts the installed service as user cabinet with the packaged config (ports chosen by the
# system, so nothing on this machine collides), waits for its URL in the log.
start_service() {
  : > "$work/serve.log"
  runuser -u cabinet -- env CABINET_CACHE_DIR=/var/cache/cabinet CABINET_HTTP_PORT=0 CABINET_RPC_PORT=0 CABINET_MQTT_PORT=0 \
    /usr/bin/cabinet serve --config /etc/cabinet/cabinet.yaml > "$work/serve.log" 2>&1 &
  server_pid=$!
  url=""
  for _ in $(seq 1 120); do
    url=$(sed -n 's/.*"msg":"cabinet listening on \(http:[^"]*\)".*/\1/p' "$work/serve.log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log"; fail "cabinet serve exited"; }
    sleep 0.5
  done
  [ -n "$url" ] || { cat "$work/serve.log"; fail "cabinet serve did not listen"; }
  curl -fsS "$url/ready" >/dev/null || fail "/ready"
}
stop_service() {
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }

echo "-- dpkg -i $deb_amd64 (no systemd running here)"
dpkg -i "$deb_amd64" | tee "$work/install.log"
grep -q "systemd is not running here" "$work/install.log" || fail "postinst did not say systemd is absent"
grep -qF 'cabinet passkey issue --config /etc/cabinet/cabinet.yaml' "$work/install.log" || fail "postinst did not give the first-card command"
getent passwd cabinet | grep -q ':/var/lib/cabinet:/usr/sbin/nologin$' || fail "user cabinet"
[ "$(stat -c '%U:%G %a' /var/lib/cabinet)" = "cabinet:cabinet 700" ] || fail "/var/lib/cabinet owner/mode: $(stat -c '%U:%G %a' /var/lib/cabinet)"
[ "$(stat -c '%U:%G %a' /etc/cabinet/cabinet.yaml)" = "root:cabinet 640" ] || fail "config owner/mode: $(stat -c '%U:%G %a' /etc/cabinet/cabinet.yaml)"
[ -L /etc/systemd/system/multi-user.target.wants/cabinet.service ] || fail "the unit is not enabled"
# The installer of the fleet's self-update: its path unit and its boot run enabled, its root-only directory.
[ -L /etc/systemd/system/paths.target.wants/cabinet-updater.path ] || fail "cabinet-updater.path is not enabled"
[ -L /etc/systemd/system/multi-user.target.wants/cabinet-updater.service ] || fail "cabinet-updater.service (the boot run) is not enabled"
[ "$(stat -c '%U:%G %a' /var/lib/cabinet-updater)" = "root:root 700" ] || fail "/var/lib/cabinet-updater owner/mode"
# The packaged units, with their ExecStart at /usr/bin, as systemd reads them.
if command -v systemd-analyze >/dev/null; then systemd-analyze verify --man=no /lib/systemd/system/cabinet.service /lib/systemd/system/cabinet-updater.path /lib/systemd/system/cabinet-updater.service || fail "systemd-analyze verify of the installed units"; fi
/usr/bin/cabinet version | tee "$work/version"
grep -qx "cabinet $version" "$work/version" || fail "cabinet version"

echo "-- start from the installed paths with the packaged config; first run"
start_service
grep -q '"msg":"no admin passkey yet: create the first admin card with: ' "$work/serve.log" || { cat "$work/serve.log"; fail "no first-run line in the log"; }
status=$(curl -fsS "$url/api/v1/auth/passkey/status")
[ "$(echo "$status" | json 'v.item.setup_required')" = true ] || fail "status: setup_required is not true: $status"
hint=$(echo "$status" | json 'v.item.setup_hint')
echo "setup_hint: $hint"
[ "$hint" = 'sudo -u cabinet CABINET_CACHE_DIR=/var/cache/cabinet cabinet passkey issue --config /etc/cabinet/cabinet.yaml --type rfid --holder "Site admin" --role admin --scope-type tenant --card-uid <card UID>' ] || fail "setup_hint is not the packaged command"
grep -qF "create the first admin card with: ${hint//\"/\\\"}" "$work/serve.log" || fail "the log's command differs from setup_hint"
# The command as printed (no sudo on this machine: runuser does the same user switch).
cmd=${hint#sudo -u cabinet }
grep -qF "  $hint" "$work/install.log" || fail "the command postinst printed differs from setup_hint"
eval "runuser -u cabinet -- env ${cmd/<card UID>/04A1B2C3D4}" 2>&1 | sed 's/^credential .*/credential (not shown)/' | tee "$work/card.log"
# The card is the administrator of the box's own tenant and site (site.json, written at first start).
box=$(json '`tenant:${v.tenant_id}/site:${v.site_id}`' < /var/lib/cabinet/site.json)
grep -qF "(rfid, admin, $box," "$work/card.log" || fail "the first card is not bound to $box"
[ "$(curl -fsS "$url/api/v1/auth/passkey/status" | json 'v.item.setup_required')" = false ] || fail "setup_required still true after the first card"
token=$(runuser -u cabinet -- env CABINET_CACHE_DIR=/var/cache/cabinet cabinet token --config /etc/cabinet/cabinet.yaml --role admin --scope-type master 2>/dev/null)
curl -fsS -o /dev/null -H "authorization: Bearer $token" -H 'content-type: application/json' -d '{"item":{"id":"deb-row","note":"before upgrade"}}' "$url/api/v1/tables" || fail "write a row"
stop_service

echo "-- upgrade to a higher version, with an edited conffile"
sed -i 's/^shutdown_timeout_ms: 10000$/shutdown_timeout_ms: 9000  # edited by the admin/' /etc/cabinet/cabinet.yaml
grep -q 'edited by the admin' /etc/cabinet/cabinet.yaml || fail "could not edit the conffile"
# Six older backups: after the upgrade's own backup only the newest five may remain.
install -d -m 0700 /var/backups/cabinet
for i in 1 2 3 4 5 6; do : > "/var/backups/cabinet/cabinet-0.0.$i-old.tar.gz"; touch -d "2020-01-0$i" "/var/backups/cabinet/cabinet-0.0.$i-old.tar.gz"; done
node scripts/deb.mjs --arch x64 --version "$version+ci1" --out "$work" --compress none >/dev/null
dpkg -i "$work/cabinet_${version}+ci1_amd64.deb" | tee "$work/upgrade.log"
[ "$(dpkg-query -W -f '${Version}' cabinet)" = "$version+ci1" ] || fail "upgraded version"
grep -q 'edited by the admin' /etc/cabinet/cabinet.yaml || fail "the edited conffile was replaced"
[ ! -e /etc/cabinet/cabinet.yaml.dpkg-new ] && [ ! -e /etc/cabinet/cabinet.yaml.dpkg-dist ] || fail "conffile prompt files left"
backup=$(ls -1t /var/backups/cabinet/cabinet-"$version"-*.tar.gz | head -1)
[ -n "$backup" ] || fail "no upgrade backup"
grep -qF "backup of the data before the upgrade from $version: $backup" "$work/upgrade.log" || fail "postinst did not say where the backup is"
[ "$(stat -c '%a' "$backup")" = 600 ] || fail "backup mode"
tar -tzf "$backup" | sort | tr '\n' ' ' | grep -qx 'cabinet.sqlite manifest.json session.key tls-ca.crt tls-ca.key ' || fail "backup contents"
[ "$(ls /var/backups/cabinet | wc -l)" = 5 ] || fail "not the newest five backups kept: $(ls /var/backups/cabinet)"
[ ! -e /var/backups/cabinet/cabinet-0.0.2-old.tar.gz ] && [ -e /var/backups/cabinet/cabinet-0.0.3-old.tar.gz ] || fail "the wrong backups were pruned: $(ls /var/backups/cabinet)"
start_service
[ "$(curl -fsS -H "authorization: Bearer $token" "$url/api/v1/tables/deb-row" | json 'v.item.note')" = "before upgrade" ] || fail "the row is gone after the upgrade"
curl -fsS -o /dev/null -H "authorization: Bearer $token" -H 'content-type: application/json' -d '{"item":{"id":"deb-row-2"}}' "$url/api/v1/tables" || fail "write a second row"

echo "-- restore the upgrade's backup as root (README's command), the service stopped"
root_cache=$(mktemp -d)
CABINET_CACHE_DIR="$root_cache" cabinet restore --config /etc/cabinet/cabinet.yaml --from "$backup" && fail "restore ran while the service had the database open"
stop_service
CABINET_CACHE_DIR="$root_cache" cabinet restore --config /etc/cabinet/cabinet.yaml --from "$backup" || fail "restore"
rm -rf "$root_cache"
[ "$(stat -c '%U:%G %a' /var/lib/cabinet/cabinet.sqlite)" = "cabinet:cabinet 600" ] || fail "restored database owner/mode: $(stat -c '%U:%G %a' /var/lib/cabinet/cabinet.sqlite)"
[ "$(stat -c '%U:%G %a' /var/lib/cabinet/session.key)" = "cabinet:cabinet 600" ] || fail "restored session key owner/mode"
start_service
[ "$(curl -fsS -H "authorization: Bearer $token" "$url/api/v1/tables/deb-row" | json 'v.item.note')" = "before upgrade" ] || fail "the row is not in the restored database"
[ "$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $token" "$url/api/v1/tables/deb-row-2")" = 404 ] || fail "the row written after the backup is still there: nothing was restored"
stop_service

echo "-- dpkg -r: the program goes, data, backups and configuration stay"
dpkg -r cabinet | tee "$work/remove.log"
[ ! -e /usr/bin/cabinet ] && [ ! -e /lib/systemd/system/cabinet.service ] || fail "binary or unit left after remove"
[ -f /var/lib/cabinet/cabinet.sqlite ] && [ -f /var/lib/cabinet/session.key ] || fail "data gone after remove"
grep -q 'edited by the admin' /etc/cabinet/cabinet.yaml || fail "config gone after remove"
[ -f "$backup" ] || fail "backup gone after remove"
dpkg -l cabinet | grep -q '^rc' || fail "package not in state rc"

echo "-- dpkg -P: everything goes, after saying so"
dpkg -P cabinet | tee "$work/purge.log"
grep -q 'purge deletes the data' "$work/purge.log" || fail "purge did not say what it deletes"
for gone in /var/lib/cabinet /var/cache/cabinet /var/backups/cabinet /etc/cabinet /etc/systemd/system/multi-user.target.wants/cabinet.service \
            /var/lib/cabinet-updater /etc/systemd/system/paths.target.wants/cabinet-updater.path /etc/systemd/system/multi-user.target.wants/cabinet-updater.service; do
  [ ! -e "$gone" ] || fail "$gone left after purge"
done
! dpkg -l cabinet 2>/dev/null | grep -qE '^(ii|rc)' || fail "package still known after purge"
echo "ok (the system user cabinet stays, as is Debian practice)"
