#!/usr/bin/env bash
# Installs the toolchains the vendor kits' tests build with (tests/test_kit_*.py, and the kits' pages that
# tests/test_docs_commands.py runs), from Debian:
#   C++         g++, make, nlohmann-json3-dev (JSON)
#   C#          mono-devel (mcs, mono, Mono.Posix), libnewtonsoft-json-cil-dev (JSON)
#   Java        openjdk-17-jdk-headless (javac, jar), libjackson2-databind-java (JSON)
#   TypeScript  node and npm (Debian nodejs and npm when no node is on the PATH); the compiler
#               itself comes from the npm registry, pinned by kits/typescript/package-lock.json,
#               when the kit is built (npm ci)
# Idempotent: when everything is there it only asks dpkg (well under a second) and installs
# nothing. Needs root (or sudo) only when something is missing. .ci/system-packages calls it, which
# make test runs first (.ci/run runs only make test).
set -euo pipefail

packages=(g++ make nlohmann-json3-dev mono-devel libnewtonsoft-json-cil-dev openjdk-17-jdk-headless
          libjackson2-databind-java)
missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$package")
done
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)

if ((${#missing[@]} == 0)); then
    echo "kits/toolchains.sh: every kit toolchain is installed"
    exit 0
fi
sudo=()
((EUID == 0)) || sudo=(sudo)
echo "kits/toolchains.sh: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
