# Shared by the benchmarks (bench_out: those that boot a guest).  Source after rig/common.sh.

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

# bench_time OUT CMD...: CMD under GNU time, its stdout in OUT; prints
# "user_s sys_s peak_kib status": status is the exit status, or
# signal-N when signal N killed it (GNU time's %x says 0 then, beside its
# "Command terminated by signal N" line), or "- - - no-time-line".
bench_time() {
	local o=$1 r sig
	shift
	r=$(/usr/bin/time -f 'TIME %U %S %M %x' "$@" 2>&1 >"$o" |
		grep -E '^(TIME |Command terminated by signal )') || true
	sig=$(sed -n 's/^Command terminated by signal \([0-9]*\).*/\1/p' <<< "$r")
	r=$(grep '^TIME ' <<< "$r" | tail -1) || true
	[ -n "$r" ] || { echo "- - - no-time-line"; return; }
	set -- $r
	[ -z "$sig" ] || set -- "$1" "$2" "$3" "$4" "signal-$sig"
	echo "$2 $3 $4 $5"
}
