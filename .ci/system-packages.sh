#!/usr/bin/env bash
# Debian packages the test suite and the shipping checks use. Idempotent.
#   bash .ci/system-packages.sh        all of them (CI, before the shipping checks)
#   bash .ci/system-packages.sh test   only the test suite's peers; `npm test` runs this first (pretest)
# Missing packages are installed when running as root or with password-less sudo; otherwise this
# fails at once and names them, instead of a test failing later for a reason known now.
set -euo pipefail
need=(socat python3-pymodbus python3-serial python3-serial-asyncio python3-aiosmtpd mosquitto-clients qemu-user libc6-arm64-cross libstdc++6-arm64-cross binutils-aarch64-linux-gnu systemd chromium libnss3-tools iproute2 wrk lintian)
# qemu-user runs the arm64 executable (its libc and libstdc++ from the -arm64-cross packages, the
# sysroot /usr/aarch64-linux-gnu); binutils-aarch64-linux-gnu strips it. Nothing is compiled.
# The test suite's peers: socat pty pairs, the pymodbus slave (it runs /usr/bin/python3), the SMTP
# server of the notification tests (python3-aiosmtpd, test/peers/smtp_sink.py), Chromium.
# libnss3-tools: certutil makes the NSS database in which the HTTPS LAN test's Chromium trusts the
# box's CA; iproute2: that test's network namespace and veth pair. mosquitto-clients: mosquitto_pub
# publishes over TLS with a device credential from the MQTT LAN test's namespace, as an installer would.
[ "${1:-}" = test ] && need=(socat python3-pymodbus python3-serial python3-serial-asyncio python3-aiosmtpd mosquitto-clients chromium libnss3-tools iproute2)

if ! command -v dpkg >/dev/null; then
  # Not Debian: nothing to install from here; say what the tests will look for if it is absent.
  absent=()
  command -v socat >/dev/null || absent+=(socat)
  /usr/bin/python3 -c 'import pymodbus' 2>/dev/null || absent+=("pymodbus for /usr/bin/python3")
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || absent+=("chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}")
  [ ${#absent[@]} -eq 0 ] && exit 0
  echo "cabinet tests need: ${absent[*]} (Debian packages: ${need[*]})" >&2
  exit 1
fi

missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "cabinet tests need these Debian packages, which are not installed: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
