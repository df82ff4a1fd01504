# Shared by setup-deps.sh, setup-cuda.sh and build.sh: fetch Kokkos 3.4.01 from Debian's trilinos
# source package, patch it for Hopper (sm_90), build and install it into a cache keyed by
# configuration. With FVPROXY_KOKKOS_ARCHIVE=/path/to/kokkos-X.Y.Z.tar.gz, that release archive is
# built instead (its checksum verified against ARCHIVE.sha256 when that file sits beside it), into a
# cache keyed by its version, its checksum and the configuration (docs/development.md#another-kokkos).
# shellcheck shell=bash
FVPROXY_CACHE="${FVPROXY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fvproxy}"
KOKKOS_VERSION=3.4.01
KOKKOS_ARCHIVE="${FVPROXY_KOKKOS_ARCHIVE:-}"
KOKKOS_ARCHIVE_SHA256=""

log() { printf '[fvproxy-setup] %s\n' "$*" >&2; }
die() { printf '[fvproxy-setup] error: %s\n' "$*" >&2; exit 1; }

# The version "X.Y.ZZ" of a Kokkos release archive, read from its top-level CMakeLists.txt.
kokkos_archive_version() {
  local archive="$1" text major minor patch
  [[ -f "$archive" ]] || die "FVPROXY_KOKKOS_ARCHIVE=$archive: no such file"
  text=$(tar -xOf "$archive" --wildcards --no-wildcards-match-slash '*/CMakeLists.txt' 2>/dev/null) ||
    die "FVPROXY_KOKKOS_ARCHIVE=$archive: not a Kokkos source archive (no top-level CMakeLists.txt)"
  major=$(sed -n -E 's/^set\(Kokkos_VERSION_MAJOR ([0-9]+)\)/\1/p' <<<"$text")
  minor=$(sed -n -E 's/^set\(Kokkos_VERSION_MINOR ([0-9]+)\)/\1/p' <<<"$text")
  patch=$(sed -n -E 's/^set\(Kokkos_VERSION_PATCH ([0-9]+)\)/\1/p' <<<"$text")
  [[ -n "$major" && -n "$minor" && -n "$patch" ]] ||
    die "FVPROXY_KOKKOS_ARCHIVE=$archive: no Kokkos_VERSION_MAJOR/MINOR/PATCH in its CMakeLists.txt"
  printf '%d.%d.%02d\n' "$major" "$minor" "$patch"
}

# With FVPROXY_KOKKOS_ARCHIVE: checks the archive (its checksum against ARCHIVE.sha256 when that
# file exists) and sets KOKKOS_VERSION and KOKKOS_ARCHIVE_SHA256. Without: nothing (Debian's 3.4.01).
_select_archive() {
  [[ -n "$KOKKOS_ARCHIVE" ]] || return 0
  [[ -f "$KOKKOS_ARCHIVE" ]] || die "FVPROXY_KOKKOS_ARCHIVE=$KOKKOS_ARCHIVE: no such file"
  KOKKOS_ARCHIVE="$(cd "$(dirname "$KOKKOS_ARCHIVE")" && pwd)/$(basename "$KOKKOS_ARCHIVE")"
  KOKKOS_ARCHIVE_SHA256=$(sha256sum "$KOKKOS_ARCHIVE" | cut -d' ' -f1)
  local sumfile="$KOKKOS_ARCHIVE.sha256" expected
  if [[ -f "$sumfile" ]]; then
    expected=$(awk 'NR == 1 {print tolower($1)}' "$sumfile")
    [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || die "$sumfile: expected a SHA-256 (64 hex digits) as its first word"
    [[ "$expected" == "$KOKKOS_ARCHIVE_SHA256" ]] ||
      die "$KOKKOS_ARCHIVE: SHA-256 $KOKKOS_ARCHIVE_SHA256 does not match $sumfile ($expected)"
    log "$(basename "$KOKKOS_ARCHIVE"): SHA-256 matches $(basename "$sumfile")"
  else
    log "warning: no $(basename "$sumfile") beside $KOKKOS_ARCHIVE: its checksum is not verified"
  fi
  KOKKOS_VERSION=$(kokkos_archive_version "$KOKKOS_ARCHIVE")
}

# Writes a one-line-format deb-src list derived from the machine's own Debian entries (deb822
# *.sources or one-line *.list), so no host name is hard-coded here.
_write_deb_src_list() {
  local out="$1"
  : >"$out"
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    sed -n -E 's/^[[:space:]]*deb[[:space:]]+/deb-src /p' "$f" | grep -i debian >>"$out" || true
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris ~ /debian/) {
          n = split(uris, u, " "); m = split(suites, s, " ");
          for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) {
            opt = (signed != "") ? "[signed-by=" signed "] " : "";
            print "deb-src " opt u[i] " " s[j] " " comps;
          }
        }
        types = uris = suites = comps = signed = "";
      }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      /^Types:/ { sub(/^Types:[[:space:]]*/, ""); types = $0 }
      /^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
      /^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
      /^Components:/ { sub(/^Components:[[:space:]]*/, ""); comps = $0 }
      /^Signed-By:/ { sub(/^Signed-By:[[:space:]]*/, ""); signed = $0 }
      END { flush() }
    ' "$f" >>"$out"
  done
  [[ -s "$out" ]] || die "no Debian apt entry found to derive a deb-src entry from"
}

# Prints the path of an unpacked Kokkos source tree in the cache: the archive's
# (FVPROXY_KOKKOS_ARCHIVE), or Debian's 3.4.01 patched for Hopper.
kokkos_source() {
  [[ -n "$KOKKOS_ARCHIVE" ]] && { _archive_source; return; }
  local src="$FVPROXY_CACHE/src/kokkos-$KOKKOS_VERSION"
  if [[ -f "$src/.fvproxy-ready" ]]; then echo "$src"; return; fi
  local work="$FVPROXY_CACHE/src/work.$$"
  local dl="$FVPROXY_CACHE/src/dl"
  rm -rf "$work"; mkdir -p "$work/lists/partial" "$dl"
  _write_deb_src_list "$work/sources.list"
  local aopt=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")
  if ! ls "$dl"/trilinos_*.orig.tar.* >/dev/null 2>&1; then
    log "fetching Debian's trilinos source package (holds Kokkos $KOKKOS_VERSION)"
    apt-get "${aopt[@]}" update -qq >&2 || die "apt-get update for the deb-src entry failed"
    (cd "$dl" && apt-get "${aopt[@]}" source --download-only -qq trilinos >&2) ||
      die "apt-get source --download-only trilinos failed"
  fi
  local tarball
  tarball=$(ls "$dl"/trilinos_*.orig.tar.* | head -n 1)
  [[ -f "$tarball" ]] || die "trilinos orig tarball not found"
  log "extracting packages/kokkos from $(basename "$tarball")"
  mkdir -p "$work/x"
  tar -xf "$tarball" -C "$work/x" --wildcards '*/packages/kokkos/*'
  local kdir
  kdir=$(find "$work/x" -maxdepth 3 -type d -path '*/packages/kokkos' | head -n 1)
  [[ -n "$kdir" ]] || die "packages/kokkos missing from the trilinos tarball"
  grep -q "set(Kokkos_VERSION_MAJOR 3)" "$kdir/CMakeLists.txt" && grep -q "set(Kokkos_VERSION_MINOR 4)" "$kdir/CMakeLists.txt" ||
    die "the trilinos package does not hold Kokkos $KOKKOS_VERSION ($kdir)"
  _keep_source "$kdir" "$src" "$work"
}

# Patches the unpacked tree KDIR, moves it to SRC, marks it ready, removes WORK and prints SRC.
_keep_source() {
  local kdir="$1" src="$2" work="$3"
  _patch_hopper "$kdir"
  rm -rf "$src"; mkdir -p "$(dirname "$src")"
  mv "$kdir" "$src"
  rm -rf "$work"
  touch "$src/.fvproxy-ready"
  echo "$src"
}

# The archive's source tree, unpacked once per checksum.
_archive_source() {
  local src="$FVPROXY_CACHE/src/kokkos-$KOKKOS_VERSION-${KOKKOS_ARCHIVE_SHA256:0:10}"
  if [[ -f "$src/.fvproxy-ready" ]]; then echo "$src"; return; fi
  local work="$FVPROXY_CACHE/src/work.$$"
  rm -rf "$work"; mkdir -p "$work"
  log "extracting $(basename "$KOKKOS_ARCHIVE") (Kokkos $KOKKOS_VERSION)"
  tar -xf "$KOKKOS_ARCHIVE" -C "$work" || die "could not extract $KOKKOS_ARCHIVE"
  local kdir
  kdir=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [[ -f "$kdir/CMakeLists.txt" && -f "$kdir/cmake/kokkos_arch.cmake" ]] ||
    die "$KOKKOS_ARCHIVE does not hold a Kokkos source tree (one folder with CMakeLists.txt and cmake/)"
  _keep_source "$kdir" "$src" "$work"
}

# Kokkos 3.4 predates Hopper: add the HOPPER90 architecture option (docs/gpu.md#the-toolchain-step-by-step, item 4).
_patch_hopper() {
  local f="$1/cmake/kokkos_arch.cmake"
  grep -q HOPPER90 "$f" && return 0
  sed -i -E '/KOKKOS_ARCH_OPTION\(AMPERE86 /a KOKKOS_ARCH_OPTION(HOPPER90        GPU  "NVIDIA Hopper generation CC 9.0")' "$f"
  sed -i -E '/CHECK_CUDA_ARCH\(AMPERE86[[:space:]]+sm_86\)/a CHECK_CUDA_ARCH(HOPPER90  sm_90)' "$f"
  grep -q 'CHECK_CUDA_ARCH(HOPPER90  sm_90)' "$f" || die "could not patch $f for Hopper"
  grep -q 'KOKKOS_ARCH_OPTION(HOPPER90' "$f" || die "could not patch $f for Hopper"
}

# build_kokkos NAME CMAKE-ARGS... : builds and installs into $FVPROXY_CACHE/kokkos-<ver>-NAME-<hash>
# and prints KOKKOS_ROOT=<prefix>. The hash covers the arguments, so another configuration gets
# another prefix and an existing one is reused.
build_kokkos() {
  local name="$1"; shift
  local key
  # Debian's 3.4.01 keeps the key it always had (no archive checksum), so existing caches stay valid.
  key=$(printf '%s\n' "$KOKKOS_VERSION" "$@" "${CXX_KEY:-}" ${KOKKOS_ARCHIVE_SHA256:+"archive=$KOKKOS_ARCHIVE_SHA256"} |
    sha1sum | cut -c1-10)
  local prefix="$FVPROXY_CACHE/kokkos-$KOKKOS_VERSION-$name-$key"
  if [[ -f "$prefix/.fvproxy-ready" ]]; then
    log "Kokkos ($name) already installed at $prefix"
    echo "KOKKOS_ROOT=$prefix"
    return 0
  fi
  local src
  src=$(kokkos_source)
  local bdir="$FVPROXY_CACHE/build/kokkos-$name-$key"
  rm -rf "$bdir" "$prefix"; mkdir -p "$FVPROXY_CACHE/build"
  log "building Kokkos $KOKKOS_VERSION ($name) into $prefix"
  cmake -S "$src" -B "$bdir" -G Ninja "$@" -DCMAKE_INSTALL_PREFIX="$prefix" >"$bdir.log" 2>&1 ||
    { tail -n 30 "$bdir.log" >&2; die "Kokkos configure failed (log: $bdir.log)"; }
  cmake --build "$bdir" --parallel "$(nproc)" >>"$bdir.log" 2>&1 ||
    { tail -n 30 "$bdir.log" >&2; die "Kokkos build failed (log: $bdir.log)"; }
  cmake --install "$bdir" >>"$bdir.log" 2>&1 || die "Kokkos install failed (log: $bdir.log)"
  rm -rf "$bdir"
  touch "$prefix/.fvproxy-ready"
  echo "KOKKOS_ROOT=$prefix"
}

_select_archive
