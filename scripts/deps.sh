#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and benchmarking
# signet needs. Idempotent: when everything is present it does nothing.
# Uses sudo only when not already root.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build ccache pkg-config make
  # clang and its runtimes for the libFuzzer targets (scripts/fuzz.sh)
  clang clang-14 libclang-rt-14-dev
  # `make lint`: clang-format (pinned to 14: versions format differently)
  # and python3 for scripts/check-docs.py
  clang-format-14 python3
  # libraries (each one used by a CMakeLists.txt: docs/DESIGN.md
  # "Dependencies" says what for)
  libssl-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev
  libasio-dev libflatbuffers-dev flatbuffers-compiler libp11-kit-dev
  libgtest-dev libbenchmark-dev
  # Salsa20/12 for `bench speed` (seed 002's row; OpenSSL has no Salsa20)
  libsodium-dev
  # secp256k1 ECDSA (crypto/secp256k1_ecdsa.h; 10x OpenSSL's generic code)
  libsecp256k1-dev
  # Ed25519ctx/ph and Ed448ph (crypto/eddsa_instances.h; OpenSSL 3.0 lacks them)
  libdecaf-dev
  # PostgreSQL: libpq for the shared keystore (issue 18), and the server
  # the multi-node tests start themselves (tests/e2e/postgres_server.h)
  libpq-dev postgresql
  # independent verifiers and third-party PKCS#11 clients for tests
  openssl opensc gnutls-bin libengine-pkcs11-openssl
  openssh-client softhsm2 openjdk-17-jdk-headless libnss3-tools
  # the install test (tests/e2e/install_test.cc): p11-kit list-modules,
  # systemd-analyze verify (works without systemd running), setpriv
  p11-kit systemd util-linux
  # the metrics test parses a scrape with Prometheus's own text parser
  python3-prometheus-client
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps.sh: installing ${missing[*]}" >&2
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
