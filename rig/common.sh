# Shared settings for the rig scripts.  Sourced, not run.
# CACHE survives between runs and lives outside the checkout.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FTD_CACHE:-/var/cache/ftrace-defer}
log() { printf '[rig %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# patch_series DIR ARRAY: the patches DIR/series names, in its order
# ('#' comments and blank lines skipped), as paths into ARRAY; none when
# DIR has no series file.  Dies on a name that is not a file of DIR.
patch_series() {
	local -n out=$2
	local p
	out=()
	[ -f "$1/series" ] || return 0
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$1/$p" ] || die "${1#"$REPO"/}/series names $p, which does not exist"
		out+=("$1/$p")
	done < "$1/series"
}

# Create $CACHE (as root when /var/cache is not ours) and make it ours.
ensure_cache() {
	[ -d "$CACHE" ] && [ -w "$CACHE" ] && return 0
	mkdir -p "$CACHE" 2>/dev/null ||
		{ as_root mkdir -p "$CACHE" && as_root chown "$(id -u):$(id -g)" "$CACHE"; } ||
		die "cannot create $CACHE (set FTD_CACHE to a writable directory)"
}

# Run a command as root (sudo when we are not root).
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# need_pkgs PKG...: install the Debian packages that are missing.
# Checks with dpkg-query first, so a machine that has them all costs nothing;
# otherwise runs `apt-get update` once per process, then installs.
_ftd_apt_updated=
need_pkgs() {
	local p missing=()
	for p in "$@"; do
		case $(dpkg-query -W -f='${db:Status-Abbrev}\n' "$p" 2>/dev/null) in
		ii*) ;;
		*) missing+=("$p") ;;
		esac
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing missing packages: ${missing[*]}"
	if [ -z "$_ftd_apt_updated" ]; then
		as_root apt-get -o DPkg::Lock::Timeout=900 update -q >&2 ||
			die "apt-get update failed"
		_ftd_apt_updated=1
	fi
	# Another rig run (a second cache, a helper) may hold dpkg's lock: wait
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=900 install -y -q \
		--no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# Seconds since the epoch with milliseconds, and a pretty difference.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.1f s", b - a }'; }

# apt_archive_uri: the Debian archive this machine's apt is configured with,
# read from its own sources (deb822 *.sources first, then one-line *.list and
# sources.list).  Prints the URI of the first "deb" entry that serves a
# release suite (not -security, -updates or -backports) with component main,
# so the rig follows whatever mirror or proxy the machine uses and names no
# host itself.  FTD_APT_URI overrides.
apt_archive_uri() {
	if [ -n "${FTD_APT_URI:-}" ]; then echo "$FTD_APT_URI"; return 0; fi
	local d=${FTD_APT_ETC:-/etc/apt} f uri
	uri=$(
		for f in "$d"/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# paragraphs separated by blank lines; comments dropped
			awk 'BEGIN { RS = ""; FS = "\n" }
			{
				types = uris = suites = comps = ""; enabled = 1
				for (i = 1; i <= NF; i++) {
					line = $i; sub(/#.*/, "", line)
					if (match(line, /^[A-Za-z-]+:/)) {
						key = tolower(substr(line, 1, RLENGTH - 1))
						val = substr(line, RLENGTH + 1)
						if (key == "types") types = val
						else if (key == "uris") uris = val
						else if (key == "suites") suites = val
						else if (key == "components") comps = val
						else if (key == "enabled" && val ~ /no/) enabled = 0
					}
				}
				if (!enabled || types !~ /(^|[ \t])deb([ \t]|$)/) next
				if (comps !~ /(^|[ \t])main([ \t]|$)/) next
				n = split(suites, s, /[ \t]+/); ok = 0
				for (j = 1; j <= n; j++)
					if (s[j] != "" && s[j] !~ /-(security|updates|backports)$/ && s[j] !~ /\//) ok = 1
				if (!ok) next
				split(uris, u, /[ \t]+/)
				for (j = 1; j in u; j++) if (u[j] != "") { print u[j]; exit }
			}' "$f"
		done
		cat "$d"/sources.list "$d"/sources.list.d/*.list 2>/dev/null |
			awk '{ sub(/#.*/, "") }
			$1 == "deb" {
				i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
				if ($i ~ /^\[/ || $i ~ /\]$/) i++
				uri = $i; suite = $(i + 1)
				main = 0; for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
				if (main && suite !~ /-(security|updates|backports)$/) { print uri; exit }
			}'
	) || true
	uri=$(printf '%s\n' "$uri" | awk 'NF { print; exit }')
	[ -n "$uri" ] || return 1
	echo "${uri%/}"
}

# choose_accel KERNEL: set the array ACCEL to QEMU's accelerator options.
# KVM only when a probe boot shows a guest running under it: some machines
# have a /dev/kvm that opens and creates VMs but runs no guest (QEMU aborts
# on an MSR, or the guest hangs with no output), so presence proves
# nothing.  The probe boots KERNEL with no initramfs under KVM; the guest
# must reach the end of its boot ("Kernel panic - not syncing": no root
# file system) and QEMU must exit by itself (-no-reboot, panic=-1) within
# FTD_KVM_PROBE_TIMEOUT seconds (default 20; a working KVM needs ~2 s).
# Otherwise TCG.  One log line says which and why.
#   FTD_ACCEL=kvm|tcg|auto   force KVM (no probe) or TCG; default auto
#   FTD_NO_KVM=1             same as FTD_ACCEL=tcg
#   FTD_KVM_PROBE_ARGS=...   extra QEMU options for the probe only (tests
#                            use it to break the probe and see the fallback)
#   FTD_KVM_DEV=PATH         the KVM device to look for (default /dev/kvm)
#   FTD_KVM_PROBE_QEMU=CMD   the QEMU binary of the probe (tests put in a
#                            fake that aborts or hangs the way a broken KVM
#                            does)
# TCG runs one thread for all vCPUs: with a thread per vCPU, a vCPU can
# run a stale translation of code another one has just patched (static
# keys, tracepoints), seen once as an "Oops: int3" on a busy host.
ACCEL_KVM=(-machine pc,accel=kvm -cpu host)
ACCEL_TCG=(-machine pc -accel tcg,thread=single -cpu max)
choose_accel() {
	local kernel=$1 mode=${FTD_ACCEL:-auto} dev=${FTD_KVM_DEV:-/dev/kvm}
	[ -n "${FTD_NO_KVM:-}" ] && mode=tcg
	case $mode in
	tcg) ACCEL=("${ACCEL_TCG[@]}"); log "accel: TCG (FTD_ACCEL=tcg)"; return 0 ;;
	kvm) ACCEL=("${ACCEL_KVM[@]}"); log "accel: KVM (FTD_ACCEL=kvm, not probed)"; return 0 ;;
	auto) ;;
	*) die "FTD_ACCEL=$mode: want kvm, tcg or auto" ;;
	esac
	if ! [ -r "$dev" ] || ! [ -w "$dev" ]; then
		ACCEL=("${ACCEL_TCG[@]}")
		log "accel: TCG (no usable $dev)"
		return 0
	fi
	local why
	if why=$(probe_kvm "$kernel"); then
		ACCEL=("${ACCEL_KVM[@]}")
		log "accel: KVM ($why)"
	else
		ACCEL=("${ACCEL_TCG[@]}")
		log "accel: TCG, KVM probe failed: $why"
	fi
}

# probe_kvm KERNEL: boot KERNEL under KVM to its end; prints what happened.
probe_kvm() {
	local kernel=$1 t=${FTD_KVM_PROBE_TIMEOUT:-20} tmp rc start
	local -a extra=()
	# shellcheck disable=SC2206  # word splitting wanted: a list of options
	[ -n "${FTD_KVM_PROBE_ARGS:-}" ] && extra=($FTD_KVM_PROBE_ARGS)
	tmp=$(mktemp -d)
	start=$(now)
	timeout -k 5 "$t" "${FTD_KVM_PROBE_QEMU:-qemu-system-x86_64}" \
		"${ACCEL_KVM[@]}" "${extra[@]}" \
		-smp 1 -m 256M -nodefaults -no-user-config -display none -no-reboot \
		-kernel "$kernel" -append "console=ttyS0 panic=-1 acpi=noirq" \
		-serial "file:$tmp/console" </dev/null >"$tmp/qemu" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q 'Kernel panic - not syncing' "$tmp/console" 2>/dev/null; then
		echo "probe boot finished in $(elapsed "$start")"
		rm -rf "$tmp"
		return 0
	fi
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "no finished boot within ${t}s ($(wc -l < "$tmp/console") console lines)"
	else
		echo "qemu exited with status $rc: $(tr '\n' ' ' < "$tmp/qemu" | cut -c1-200)"
	fi
	rm -rf "$tmp"
	return 1
}

# private_apt DIR 'TYPE SUITE'...: an apt state of our own in DIR (the
# machine's apt setup is not touched), whose sources are the given entries
# (for example 'deb trixie-backports', 'deb-src bookworm') on the machine's
# own archive (apt_archive_uri), component main.  Sets APT_OPTS, the
# options that make apt-get use it; the caller runs 'apt-get update'.
private_apt() {
	local dir=$1 archive e
	shift
	mkdir -p "$dir"/{lists/partial,archives/partial,etc/preferences.d}
	APT_OPTS=(-o "Dir::Etc::SourceList=$dir/etc/sources.list"
		  -o "Dir::Etc::SourceParts=/nonexistent"
		  -o "Dir::Etc::Preferences=/nonexistent"
		  -o "Dir::Etc::PreferencesParts=$dir/etc/preferences.d"
		  -o "Dir::State::Lists=$dir/lists"
		  -o "Dir::State::status=/dev/null"
		  -o "Dir::Cache=$dir"
		  -o "Dir::Cache::archives=$dir/archives"
		  -o "Debug::NoLocking=1")
	archive=$(apt_archive_uri) ||
		die "no Debian archive found in /etc/apt sources (set FTD_APT_URI to one)"
	log "apt: archive $archive (from the machine's apt sources)"
	for e in "$@"; do
		printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
			"${e%% *}" "$archive" "${e#* }"
	done > "$dir/etc/sources.list"
}

# fetch_orig APT_DIR 'SUITE...' PKG VER DEST: the orig tarball of upstream
# version VER of Debian source package PKG (its first source record, any
# Debian revision) into directory DEST, through the private apt state
# APT_DIR with deb-src entries for the suites (updated once per APT_DIR
# in a run).  The Sources index gives the pool directory, the name and
# the SHA-256, which apt-helper checks.  Only the orig tarball: the
# archive may lack the .dsc and the packaging, and we want pristine
# upstream code.  A 404 is final: the archive does not serve every file.
# Prints the tarball's path.
fetch_orig() {
	local apt_dir=$1 suites=$2 pkg=$3 ver=$4 dest=$5 e=() s rec dir file sha uri
	need_pkgs apt debian-archive-keyring
	for s in $suites; do e+=("deb-src $s"); done
	private_apt "$apt_dir" "${e[@]}"
	if [ "${FTD_APT_UPDATED:-}" != "$apt_dir $suites" ]; then
		log "apt: updating private source lists ($suites)"
		apt-get "${APT_OPTS[@]}" -q update >&2 || die "apt-get update of $suites failed"
		FTD_APT_UPDATED="$apt_dir $suites"
	fi
	rec=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | awk -v ver="$ver" '
		/^Package:/ { v = d = f = h = ""; insha = 0 }
		/^Version:/ { v = $2; sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v) }
		/^Directory:/ { d = $2 }
		/^[A-Za-z0-9-]+:/ { insha = ($1 == "Checksums-Sha256:"); next }
		insha && $3 ~ /\.orig\.tar\./ { h = $1; f = $3 }
		/^$/ { if (v == ver && d != "" && f != "") { print d, f, h; exit } }
		END { if (v == ver && d != "" && f != "") print d, f, h }' | head -1)
	[ -n "$rec" ] || die "no $pkg $ver source in $suites (apt-cache showsrc $pkg lists: $(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | awk '/^Version:/ { printf "%s ", $2 }'))"
	read -r dir file sha <<<"$rec"
	uri=$(apt_archive_uri)/$dir/$file
	log "fetching $uri"
	mkdir -p "$dest"
	rm -f "$dest/$file.part"
	if ! /usr/lib/apt/apt-helper download-file "$uri" "$dest/$file.part" "SHA256:$sha" >&2; then
		rm -f "$dest/$file.part"
		die "cannot fetch $file from $uri (the archive does not serve it: a 404 is final; see the apt message above)"
	fi
	mv "$dest/$file.part" "$dest/$file"
	echo "$dest/$file"
}

# set_arch [ARCH]: the architecture the rig builds and boots, x86_64 (the
# default) or s390x, from the argument or FTD_ARCH.  Sets FTD_ARCH (exported,
# so that the scripts it runs agree), KARCH (make ARCH=), KIMAGE (the image
# under the build directory), ASFX (the suffix of build directories and
# per-arch files in the cache: empty for x86_64, so that the caches of
# before stay valid) and QEMU_BIN.  s390x is cross-built with the tools
# rig/fetch-cross.sh unpacks and booted with qemu-system-s390x (TCG).
set_arch() {
	FTD_ARCH=${1:-${FTD_ARCH:-x86_64}}
	case $FTD_ARCH in
	x86_64|x86|amd64)
		FTD_ARCH=x86_64 KARCH=x86_64 KIMAGE=arch/x86/boot/bzImage ASFX=
		QEMU_BIN=qemu-system-x86_64 ;;
	s390x|s390)
		FTD_ARCH=s390x KARCH=s390 KIMAGE=arch/s390/boot/bzImage ASFX=-s390x
		QEMU_BIN=qemu-system-s390x ;;
	*) die "unknown architecture '$FTD_ARCH' (want x86_64 or s390x)" ;;
	esac
	export FTD_ARCH
}
