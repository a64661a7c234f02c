# shellcheck shell=bash disable=SC2034 # the settings are used by the scripts that source this
# Shared settings and helpers of the image scripts. Sourced, never executed.
#
# Nothing can be pulled on these machines (no registry, no Docker), so every image is made from a
# root file system assembled here (Debian packages, npm), packed into an OCI image layout with
# umoci and archived as one tar that `ctr images import` accepts. Archives live outside the repo,
# next to a `.key` file holding the hash of everything that went into them: a script whose key is
# unchanged does nothing, any change of an input rebuilds.

IMAGES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${IMAGES_DIR}/../.." && pwd)"
IMAGE_CACHE="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/images"
# Scratch space for root file systems; large (a PostgreSQL rootfs is ~300 MB before packing).
IMAGE_TMP="${PGKEEPER_IMAGE_TMP:-${TMPDIR:-/tmp}}"
# PGKEEPER_IMAGES_FORCE=1 rebuilds even when the key matches (e.g. to pick up Debian security
# updates of packages other than the ones the key names).
IMAGES_FORCE="${PGKEEPER_IMAGES_FORCE:-0}"

# The host's suite: the pause, busybox and controller images take their packages from the host's
# own apt (fetch_deb).
DEBIAN_SUITE=bookworm
ARCH=amd64

# The PostgreSQL majors pgkeeper builds an image for, and the Debian suite that ships each (14 and
# 16 are in no suite served here). Keep in step with IMAGE_VERSIONS in
# capabilities/database/lib/config.ts (hack/images/images.test.ts checks).
declare -A POSTGRES_SUITES=([15]=bookworm [17]=trixie [18]=forky)
POSTGRES_MAJORS=(15 17 18)
# forky is Debian's testing suite: fixes land in the suite itself, and its -updates and -security
# suites are empty, with Release files past their Valid-Until (apt refuses them; seen 2026-12-05).
suite_has_updates() { [[ "$1" != forky ]]; }
postgres_ref() { printf 'localhost/pgkeeper/postgres:%s\n' "$1"; }

# The image references every other part of the project uses. `localhost/` keeps containerd from
# normalising them to docker.io, and no pull can ever succeed for them.
REF_PAUSE=localhost/pgkeeper/pause:1
REF_BUSYBOX=localhost/pgkeeper/busybox:1
REF_CONTROLLER=localhost/pgkeeper/controller:dev

# Every reference, in build order, and its archive name in the cache.
IMAGE_REFS=("${REF_PAUSE}" "${REF_BUSYBOX}")
declare -A IMAGE_ARCHIVES=(["${REF_PAUSE}"]=pause ["${REF_BUSYBOX}"]=busybox)
for major in "${POSTGRES_MAJORS[@]}"; do
  IMAGE_REFS+=("$(postgres_ref "${major}")")
  IMAGE_ARCHIVES["$(postgres_ref "${major}")"]="postgres-${major}"
done
unset major
IMAGE_REFS+=("${REF_CONTROLLER}")
IMAGE_ARCHIVES["${REF_CONTROLLER}"]=controller-dev

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

now() { date +%s.%N; }
# Seconds since a `now` value, one decimal.
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

archive_path() { printf '%s/%s.tar\n' "${IMAGE_CACHE}" "$1"; }

# Human size of a file (MiB, one decimal).
size_mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# Hash of stdin, used as a build key.
hash_stdin() { sha256sum | cut -d' ' -f1; }

# The key of the library itself and of the calling script: editing either rebuilds.
scripts_hash() { cat "${IMAGES_DIR}/lib.sh" "$@" | hash_stdin; }

# True when the archive for `name` exists and was built from `key`.
is_current() {
  local name="$1" key="$2"
  [[ "${IMAGES_FORCE}" != 1 ]] &&
    [[ -s "$(archive_path "${name}")" ]] &&
    [[ "$(cat "${IMAGE_CACHE}/${name}.key" 2>/dev/null)" == "${key}" ]]
}

# Installs host tools from Debian when missing (the machine is root; apt lists may be stale).
ensure_tools() {
  local missing=() pair cmd pkg
  for pair in "$@"; do
    cmd="${pair%%:*}" pkg="${pair#*:}"
    command -v "${cmd}" >/dev/null 2>&1 || missing+=("${pkg}")
  done
  ((${#missing[@]} == 0)) && return 0
  log "Installing ${missing[*]} from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}" \
    >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null; } ||
    die "could not install ${missing[*]}"
}

# Candidate version of a Debian package according to this machine's apt lists.
debian_version() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}

# A suite's package lists, kept apart from the host's apt (whose sources name the host's suite
# only) under the image cache, with the host's keyring checking their signatures. Fetched when
# absent, older than a day, or on PGKEEPER_IMAGES_FORCE=1.
# Args: suite mirror security-mirror
suite_lists() {
  local suite="$1" mirror="$2" security="$3" dir key
  dir="${IMAGE_CACHE}/apt/${suite}"
  if [[ "${IMAGES_FORCE}" != 1 && -n "$(find "${dir}/updated" -mmin -1440 2>/dev/null)" ]]; then
    return 0
  fi
  mkdir -p "${dir}/lists/partial" "${dir}/cache/archives/partial"
  : >"${dir}/status"
  key=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'deb [signed-by=%s] %s %s main\n' "${key}" "${mirror}" "${suite}" >"${dir}/sources.list"
  if suite_has_updates "${suite}"; then
    printf 'deb [signed-by=%s] %s %s main\n' "${key}" "${mirror}" "${suite}-updates" \
      "${key}" "${security}" "${suite}-security" >>"${dir}/sources.list"
  fi
  # apt-get update exits 0 on some failed lists (an expired Release file): its E: lines count too.
  if ! suite_apt "${suite}" apt-get update -q >"${dir}/update.log" 2>&1 ||
    grep -q '^E:' "${dir}/update.log"; then
    die "apt-get update of ${suite} failed; see ${dir}/update.log"
  fi
  touch "${dir}/updated"
}

# Runs an apt command against a suite's lists (suite_lists) instead of the host's.
suite_apt() {
  local dir="${IMAGE_CACHE}/apt/$1"
  "${@:2}" -o Dir::Etc::SourceList="${dir}/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent \
    -o Dir::State::Lists="${dir}/lists" -o Dir::State::status="${dir}/status" \
    -o Dir::Cache="${dir}/cache" -o APT::Sandbox::User=root -o Debug::NoLocking=1
}

# Candidate version of a package in a suite's lists (empty or "(none)" when unknown).
suite_version() {
  suite_apt "$1" apt-cache policy "$2" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}

# Downloads a Debian package (.deb) into the cache and prints its path. Downloading instead of
# installing keeps the host untouched and makes the package version part of the key.
fetch_deb() {
  local pkg="$1" dir="${IMAGE_CACHE}/debs" version file
  version="$(debian_version "${pkg}")"
  if [[ -z "${version}" || "${version}" == "(none)" ]]; then
    apt-get update -q >/dev/null
    version="$(debian_version "${pkg}")"
  fi
  [[ -n "${version}" && "${version}" != "(none)" ]] || die "Debian package ${pkg} not found"
  mkdir -p "${dir}"
  # .deb names encode the epoch colon as %3a.
  file="$(find "${dir}" -maxdepth 1 -name "${pkg}_*${version/*:/}_*.deb" -print -quit)"
  if [[ -z "${file}" ]]; then
    # stderr: apt warns that root downloads "unsandboxed" into a directory _apt cannot read.
    (cd "${dir}" && apt-get download -q "${pkg}=${version}" >/dev/null 2>&1) ||
      die "apt-get download ${pkg}=${version} failed"
    file="$(find "${dir}" -maxdepth 1 -name "${pkg}_*${version/*:/}_*.deb" -print -quit)"
  fi
  [[ -n "${file}" ]] || die "downloaded ${pkg} but cannot find its .deb in ${dir}"
  printf '%s\n' "${file}"
}

# Downloads a package of a suite (suite_lists) into that suite's cache and prints its path: a
# program taken from a package without installing it (its maintainer scripts never run).
# Args: suite package version
fetch_suite_deb() {
  local suite="$1" pkg="$2" version="$3" dir file
  dir="${IMAGE_CACHE}/apt/${suite}/debs"
  mkdir -p "${dir}"
  file="$(find "${dir}" -maxdepth 1 -name "${pkg}_${version/*:/}_*.deb" -print -quit)"
  if [[ -z "${file}" ]]; then
    (cd "${dir}" && suite_apt "${suite}" apt-get download -q "${pkg}=${version}" >/dev/null 2>&1) ||
      die "apt-get download ${pkg}=${version} from ${suite} failed"
    file="$(find "${dir}" -maxdepth 1 -name "${pkg}_${version/*:/}_*.deb" -print -quit)"
  fi
  [[ -n "${file}" ]] || die "downloaded ${pkg} but cannot find its .deb in ${dir}"
  printf '%s\n' "${file}"
}

# The Debian mirrors this machine's apt uses (deb822 `URIs:` or one-line `deb` entries), so image
# builds go where apt goes. PGKEEPER_DEBIAN_MIRROR / PGKEEPER_DEBIAN_SECURITY_MIRROR override.
debian_mirror() {
  local kind="$1" uri override
  override="${PGKEEPER_DEBIAN_MIRROR:-}"
  [[ "${kind}" == -security ]] && override="${PGKEEPER_DEBIAN_SECURITY_MIRROR:-}"
  if [[ -n "${override}" ]]; then
    printf '%s\n' "${override}"
    return 0
  fi
  uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
    2>/dev/null | grep -oE 'https?://[^ ]+/debian(-security)?/?( |$)' | tr -d ' ' | sed 's#/$##' |
    grep -E "/debian${kind}\$" | head -n1 || true)"
  printf '%s\n' "${uri:-http://deb.debian.org/debian${kind}}"
}

# Writes a minimal /etc/passwd, /etc/group and nsswitch.conf into a scratch rootfs.
# Args: rootfs, then "name:uid:gid:home" entries after root.
write_users() {
  local rootfs="$1" entry name uid gid home
  shift
  mkdir -p "${rootfs}/etc"
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"${rootfs}/etc/passwd"
  printf 'root:x:0:\n' >"${rootfs}/etc/group"
  for entry in "$@"; do
    IFS=: read -r name uid gid home <<<"${entry}"
    printf '%s:x:%s:%s:%s:%s:/sbin/nologin\n' "${name}" "${uid}" "${gid}" "${name}" "${home}" \
      >>"${rootfs}/etc/passwd"
    printf '%s:x:%s:\n' "${name}" "${gid}" >>"${rootfs}/etc/group"
  done
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"${rootfs}/etc/nsswitch.conf"
}

# Installs the static busybox of a busybox-static .deb into a rootfs with its applet links in
# /bin (shell, coreutils, mkdir, rm, ...). Merged-/usr layout like Debian: /bin -> usr/bin.
install_busybox() {
  local rootfs="$1" deb="$2" x applet
  x="$(mktemp -d "${IMAGE_TMP}/pgkeeper-bb.XXXXXX")"
  dpkg-deb -x "${deb}" "${x}"
  mkdir -p "${rootfs}/usr/bin" "${rootfs}/usr/sbin"
  [[ -e "${rootfs}/bin" ]] || ln -s usr/bin "${rootfs}/bin"
  [[ -e "${rootfs}/sbin" ]] || ln -s usr/sbin "${rootfs}/sbin"
  install -m 0755 "${x}/bin/busybox" "${rootfs}/usr/bin/busybox"
  rm -rf "${x}"
  # `busybox --list` runs the host-architecture binary we just packaged: same arch by design.
  for applet in $("${rootfs}/usr/bin/busybox" --list); do
    [[ "${applet}" == busybox ]] && continue
    [[ -e "${rootfs}/usr/bin/${applet}" ]] || ln -s busybox "${rootfs}/usr/bin/${applet}"
  done
}

# Packs a root file system into `<cache>/<name>.tar`: a one-layer OCI image layout (umoci) whose
# index names the image both ways containerd understands, so `ctr images import` gives it `ref`
# with or without `--index-name`. Config options (env, user, cmd, ...) are umoci-config flags.
# Args: rootfs name ref [umoci config flags...]
pack_image() {
  local rootfs="$1" name="$2" ref="$3" oci layer out tmp_index
  shift 3
  oci="$(mktemp -d "${IMAGE_TMP}/pgkeeper-oci.XXXXXX")"
  layer="${oci}.layer.tar"
  out="$(archive_path "${name}")"
  mkdir -p "${IMAGE_CACHE}"
  # The archive's "." entry becomes the container's /: mktemp made it 0700, which would lock every
  # non-root user out of the whole file system.
  chmod 0755 "${rootfs}"
  # Numeric owners: the image's ids must not be translated through the host's /etc/passwd.
  tar -C "${rootfs}" --numeric-owner --sort=name -cf "${layer}" .
  umoci init --layout "${oci}/layout"
  umoci new --image "${oci}/layout:${ref##*:}"
  umoci raw add-layer --image "${oci}/layout:${ref##*:}" \
    --history.created_by "hack/images (pgkeeper): ${name}" --history.comment "${ref}" "${layer}"
  rm -f "${layer}"
  umoci config --image "${oci}/layout:${ref##*:}" --no-history \
    --config.workingdir / --os linux --architecture "${ARCH}" "$@"
  umoci gc --layout "${oci}/layout"
  # containerd names an imported manifest after `io.containerd.image.name`; the OCI ref.name
  # annotation umoci wrote holds only the tag.
  tmp_index="${oci}/index.json"
  jq --arg ref "${ref}" \
    '.manifests[0].annotations["io.containerd.image.name"] = $ref
     | .manifests[0].platform = {"architecture": "'"${ARCH}"'", "os": "linux"}' \
    "${oci}/layout/index.json" >"${tmp_index}"
  mv "${tmp_index}" "${oci}/layout/index.json"
  tar -C "${oci}/layout" --sort=name -cf "${out}.tmp" oci-layout index.json blobs
  mv "${out}.tmp" "${out}"
  rm -rf "${oci}"
}

# Records the key after a successful build (so an interrupted build is never taken as current).
mark_built() { printf '%s\n' "$2" >"${IMAGE_CACHE}/$1.key"; }

# Serialises builds of the same image (two scripts racing on one archive).
lock_image() {
  mkdir -p "${IMAGE_CACHE}"
  exec {IMAGE_LOCK_FD}>"${IMAGE_CACHE}/.$1.lock"
  flock "${IMAGE_LOCK_FD}"
}
