# Shared settings for the rig scripts.  Sourced, not run.
# CACHE survives between runs and lives outside the checkout.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${FTD_CACHE:-/var/cache/ftrace-defer}
log() { printf '[rig %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
