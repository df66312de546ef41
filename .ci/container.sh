#!/usr/bin/env bash
# Build the kubevirt-krm container image and run tests/test_container.py against it (issue 6 part 5, issue 8).
#
#   .ci/container.sh                       # from anywhere; works on a dev machine with podman or Docker
#   .ci/container.sh --build-only          # build the image, leave tests/test_container.py to the caller
#
# Environment (all optional):
#   KUBEVIRT_KRM_ENGINE=podman|docker      default: podman if installed, else a working docker, else (root + apt)
#                                          podman is installed from the distribution
#   KUBEVIRT_KRM_IMAGE=kubevirt-krm:ci     tag to build and test
#   KUBEVIRT_KRM_BASE=IMAGE                the Containerfile's BASE; default: its own default (python:3.12-slim)
#                                          when that can be pulled, else a local Debian base built with mmdebstrap
#                                          from the host's apt sources (offline sandboxes without a registry)
#   KUBEVIRT_KRM_LOCAL_BASE=1              skip the registry and always use the local Debian base
#   KUBEVIRT_KRM_CI_WORK=DIR               scratch dir (default ${TMPDIR:-/tmp}/kubevirt-krm-ci)
#   PYTHON=python3                         interpreter that has pytest and can import krm_fn (the .ci/run venv)
#
# Re-runnable: the image is rebuilt every time; the local base image is reused while its recipe is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${KUBEVIRT_KRM_IMAGE:-kubevirt-krm:ci}
ENGINE=${KUBEVIRT_KRM_ENGINE:-}
BASE=${KUBEVIRT_KRM_BASE:-}
DEFAULT_BASE=$(sed -n 's/^ARG BASE=//p' Containerfile | head -n1)
WORK=${KUBEVIRT_KRM_CI_WORK:-${TMPDIR:-/tmp}/kubevirt-krm-ci}
PYTHON=${PYTHON:-python3}
BUILD_ONLY=; [ "${1:-}" = --build-only ] && BUILD_ONLY=1
t0=$(date +%s)

say() { printf '[container.sh %3ds] %s\n' "$(( $(date +%s) - t0 ))" "$*" >&2; }
run() { say "\$ $*"; "$@"; }
die() { say "ERROR: $*"; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
apt_install() {  # only what is missing; needs root and apt-get
  local missing=() p
  for p in "$@"; do command -v "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  is_root && command -v apt-get >/dev/null || die "missing ${missing[*]} and cannot install them (not root or no apt-get)"
  run apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}
mkdir -p "$WORK"
TIMEOUT=(); command -v timeout >/dev/null && TIMEOUT=(timeout 300)

# --- 1. container engine ---------------------------------------------------------------------------------
if [ -z "$ENGINE" ]; then
  if command -v podman >/dev/null; then ENGINE=podman
  elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then ENGINE=docker
  else
    say "no podman and no working docker: installing podman from the distribution"
    apt_install podman runc
    ENGINE=podman
  fi
fi
command -v "$ENGINE" >/dev/null || die "$ENGINE is not installed"
say "engine: $ENGINE ($("$ENGINE" --version 2>/dev/null | head -n1))"

# --- 2. base image -------------------------------------------------------------------------------------
image_exists() { "$ENGINE" image inspect "$1" >/dev/null 2>&1; }
qualified() {  # podman on Debian resolves short names via shortnames.conf; pulling fully qualified avoids prompts
  case "$1" in */*/*|localhost/*) echo "$1";; */*) echo "docker.io/$1";; *) echo "docker.io/library/$1";; esac
}

build_local_base() {
  # A Debian image from the host's apt sources: python3 + pip + venv, the host's extra CA certificates (HTTPS to
  # PyPI goes through an intercepting proxy here), and no EXTERNALLY-MANAGED marker (like python:3.12-slim).
  local codename sources tar key hookdir=/usr/share/mmdebstrap/hooks/merged-usr
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  sources=
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do [ -s "$f" ] && { sources=$f; break; }; done
  local include=python3,python3-pip,python3-venv,ca-certificates
  key=$( { echo "v1 $codename $include"; cat "$sources" 2>/dev/null; cat /usr/local/share/ca-certificates/* 2>/dev/null; } \
         | sha256sum | cut -c1-16)
  BASE=localhost/kubevirt-krm-base:$codename
  if image_exists "$BASE" && [ "$("$ENGINE" image inspect --format '{{index .Config.Labels "dev.kubevirt-krm.base-key"}}' "$BASE")" = "$key" ]; then
    say "reusing local base image $BASE (recipe key $key)"
    return
  fi
  apt_install mmdebstrap
  tar=$WORK/base-$codename.tar
  local args=(--variant=minbase --format=tar --include="$include"
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --customize-hook='rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED')
  [ -d "$hookdir" ] && args+=(--hook-dir="$hookdir")   # merged /usr without the usrmerge package (and perl)
  if compgen -G '/usr/local/share/ca-certificates/*' >/dev/null; then
    args+=(--customize-hook='sync-in /usr/local/share/ca-certificates /usr/local/share/ca-certificates'
           --customize-hook='chroot "$1" update-ca-certificates')
  fi
  say "building local base $BASE with mmdebstrap ($codename, sources: ${sources:-mmdebstrap default})"
  run mmdebstrap "${args[@]}" "$codename" "$tar" ${sources:+"$sources"} 2>"$WORK/mmdebstrap.log" \
    || { tail -n 30 "$WORK/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $WORK/mmdebstrap.log)"; }
  run "$ENGINE" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' \
    --change "LABEL dev.kubevirt-krm.base-key=$key" \
    "$tar" "$BASE" >/dev/null
  rm -f "$tar"
}

if [ -n "$BASE" ]; then
  image_exists "$BASE" || run "$ENGINE" pull "$BASE" || die "cannot pull KUBEVIRT_KRM_BASE=$BASE"
elif [ "${KUBEVIRT_KRM_LOCAL_BASE:-}" != 1 ] && { image_exists "$DEFAULT_BASE" \
      || { say "pulling the default base $DEFAULT_BASE"; ${TIMEOUT[@]+"${TIMEOUT[@]}"} "$ENGINE" pull "$(qualified "$DEFAULT_BASE")" >/dev/null; }; }; then
  say "using the Containerfile's default base $DEFAULT_BASE"
else
  say "default base $DEFAULT_BASE is not available (no registry?): falling back to a local Debian base"
  build_local_base
fi

# --- 3. can the engine run containers? (sandbox: runc refuses podman's default rlimits) ------------------
probe_image=${BASE:-$DEFAULT_BASE}
probe() { "$ENGINE" run --rm --network=none "$probe_image" python3 -c pass >"$WORK/probe.log" 2>&1; }
if ! probe; then
  [ "$ENGINE" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] || { cat "$WORK/probe.log" >&2; die "$ENGINE cannot run containers"; }
  say "podman cannot run containers with its defaults: $(tail -n1 "$WORK/probe.log")"
  nofile=$(ulimit -Hn); nproc=$(ulimit -Hu); pid_max=$(cat /proc/sys/kernel/pid_max)
  [ "$nofile" = unlimited ] && nofile=1048576
  { [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; } && nproc=$pid_max
  export CONTAINERS_CONF=$WORK/containers.conf
  runtime=runc; command -v runc >/dev/null || runtime=crun
  cat >"$CONTAINERS_CONF" <<EOF
# written by .ci/container.sh: default ulimits capped at the host's hard limits
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "$runtime"
EOF
  say "using CONTAINERS_CONF=$CONTAINERS_CONF (runtime $runtime, nofile $nofile, nproc $nproc)"
  probe || { cat "$WORK/probe.log" >&2; die "podman still cannot run containers"; }
fi

# --- 4. build ----------------------------------------------------------------------------------------------
# A minimal context: exactly what the Containerfile copies (no .venv, .git or __pycache__ sent to the engine).
ctx=$WORK/context
rm -rf "$ctx" && mkdir -p "$ctx"
tar --exclude=__pycache__ --exclude='*.pyc' -cf - Containerfile pyproject.toml README.md krm_fn catalog | tar -xf - -C "$ctx"
# the image carries the package's version (a label and a second tag) and the commit (a label)
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' krm_fn/__init__.py)
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
build=("$ENGINE" build -t "$IMAGE" -t "kubevirt-krm:$version" -f "$ctx/Containerfile"
       --build-arg "VERSION=$version" --build-arg "REVISION=$revision")
[ "$ENGINE" = podman ] && build+=(--pull=never --layers=false)   # no intermediate images left behind
[ -n "$BASE" ] && build+=(--build-arg "BASE=$BASE")
old_id=$("$ENGINE" image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
tb=$(date +%s)
run "${build[@]}" "$ctx"
say "built $IMAGE in $(( $(date +%s) - tb )) s"
# re-runs: drop the previous build of this tag and the untagged build-stage images (labelled in the
# Containerfile); nothing else is touched
new_id=$("$ENGINE" image inspect --format '{{.Id}}' "$IMAGE")
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then "$ENGINE" rmi "$old_id" >/dev/null 2>&1 || true; fi
"$ENGINE" image prune -f --filter label=dev.kubevirt-krm.stage=build >/dev/null 2>&1 || true
size=$("$ENGINE" image inspect --format '{{.Size}}' "$IMAGE")
say "image $IMAGE: $(( size / 1000000 )) MB (user $("$ENGINE" image inspect --format '{{.Config.User}}' "$IMAGE"))"

# --- 5. test -----------------------------------------------------------------------------------------------
if [ -n "$BUILD_ONLY" ]; then
  # the engine settings the tests need: .ci/run sources this file
  { echo "export KUBEVIRT_KRM_IMAGE='$IMAGE' KUBEVIRT_KRM_ENGINE='$ENGINE'"
    [ -n "${CONTAINERS_CONF:-}" ] && echo "export CONTAINERS_CONF='$CONTAINERS_CONF'"; } >"$WORK/engine.env"
  say "image built in $(( $(date +%s) - t0 )) s; settings in $WORK/engine.env"
  exit 0
fi
"$PYTHON" -c 'import pytest' 2>/dev/null || die "$PYTHON has no pytest: pip install -e '.[test]' (or set PYTHON)"
run env KUBEVIRT_KRM_CONTAINER_TESTS=1 KUBEVIRT_KRM_IMAGE="$IMAGE" KUBEVIRT_KRM_ENGINE="$ENGINE" \
  "$PYTHON" -m pytest -q -p no:cacheprovider tests/test_container.py
say "container stage passed in $(( $(date +%s) - t0 )) s"
