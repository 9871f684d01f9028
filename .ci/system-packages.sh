#!/usr/bin/env bash
# Debian packages the test suite and the shipping checks use. Idempotent.
set -euo pipefail
need=(socat python3-pymodbus python3-serial python3-serial-asyncio mosquitto-clients qemu-user g++-aarch64-linux-gnu systemd chromium wrk)
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
