# Shared settings for the rig scripts.  Sourced, not run.
# CACHE survives between runs and lives outside the checkout.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FTD_CACHE:-/var/cache/ftrace-defer}
log() { printf '[rig %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

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
		as_root apt-get update -q >&2 || die "apt-get update failed"
		_ftd_apt_updated=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# Seconds since the epoch with milliseconds, and a pretty difference.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.1f s", b - a }'; }
