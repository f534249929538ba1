# Shared by the benchmarks that boot a guest.  Source after rig/common.sh.

# bench_out NAME ARGS...: the run's output directory, from run-guest.sh's
# --out in ARGS, else a new $CACHE/runs/<time>-NAME-<pid> (then
# runs/latest points at it, and extra holds the --out to pass on).
# Sets out (absolute, made) and extra (an array).
bench_out() {
	local name=$1 i
	shift
	local args=("$@")
	out='' extra=()
	for ((i = 0; i < ${#args[@]}; i++)); do
		[ "${args[i]}" = --out ] && out=${args[i + 1]:-}
	done
	if [ -z "$out" ]; then
		ensure_cache
		out=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$name-$$
		mkdir -p "$out"
		ln -sfn "$out" "$CACHE/runs/latest"
		extra+=(--out "$out")
	fi
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
}
