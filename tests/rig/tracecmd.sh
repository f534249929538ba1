#!/bin/bash
# The trace-cmd 3.4 that rig/build-tracecmd.sh builds, checked on the host
# (no VM; record can only be proved in a guest).  Ends with
# "N passed, N failed".  Run by tests/rig/run.sh.
#
#   tests/rig/tracecmd.sh
#
#  - it builds (a no-op when built) and says "version 3.4.0";
#  - it takes libtraceevent (and libtracecmd, if not linked in) from its
#    prefix, not bookworm's (same sonames); no shared object exports a
#    compat stub;
#  - `report` on every tests/fixtures/*.dat (recorded by bookworm's
#    trace-cmd 3.1.6) prints what /usr/bin/trace-cmd report prints, with
#    and without our libtraceevent plugin.  The one difference is removed
#    before comparing: since 3.2 report shows the latency flags column
#    (". . . . ." after "[CPU]") by default, 3.1.6 only with -l (whose
#    layout is different again);
#  - `list -o` gives the stock list (when tracefs is readable);
#  - each patch of trace-cmd/patches/series applies, in order, to a copy
#    of pristine 3.4 (git apply --check, then apply), and the build above
#    is of that series (its usage text has what the series adds).
. "$(dirname "$0")/lib.sh"

need_pkgs trace-cmd
stock=/usr/bin/trace-cmd

# The series, each patch checked against pristine 3.4 plus the ones before
pdir=$REPO/trace-cmd/patches
if [ -f "$pdir/series" ]; then
	if src=$("$REPO/rig/fetch-tracecmd.sh" 2>"$T/fetch.log" | head -1) && [ -d "$src" ]; then
		cp -a "$src" "$T/series-tree"
		ok=1 n=0
		while read -r p _; do
			case $p in ''|'#'*) continue ;; esac
			n=$((n + 1))
			if ! git -C "$T/series-tree" apply --check "$pdir/$p" > "$T/apply.log" 2>&1; then
				fail tracecmd-series-applies "$p: $(head -3 "$T/apply.log" | tr '\n' ' ')"
				ok=0
				break
			fi
			git -C "$T/series-tree" apply "$pdir/$p"
		done < "$pdir/series"
		[ $ok = 1 ] && [ $n -gt 0 ] && pass tracecmd-series-applies
		[ $ok = 1 ] && [ $n = 0 ] && fail tracecmd-series-applies "trace-cmd/patches/series names no patch"
		rm -rf "$T/series-tree"
	else
		tail -5 "$T/fetch.log"
		fail tracecmd-series-applies "rig/fetch-tracecmd.sh failed"
	fi
fi
if tc=$("$REPO/rig/build-tracecmd.sh" 2>"$T/build.log") && [ -x "$tc" ]; then
	pass tracecmd-build
else
	tail -20 "$T/build.log"
	fail tracecmd-build "rig/build-tracecmd.sh failed"
	finish
fi
prefix=$(cd "$(dirname "$tc")/.." && pwd)

v=$("$tc" --version 2>&1 | awk '/ version / { print; exit }')
[[ $v == "trace-cmd version 3.4.0 "* ]] && pass tracecmd-version ||
	fail tracecmd-version "got '$v'"
# The binary is the series' build: patch 0001 changes the usage of -T
if [ -f "$pdir/series" ]; then
	"$tc" record -h > "$T/usage" 2>&1
	grep -q -- '-T do a stacktrace on all events (with the user stack' "$T/usage" &&
		pass tracecmd-series-built ||
		fail tracecmd-series-built "record -h does not show the series' -T text"
fi

ldd "$tc" > "$T/ldd" 2>&1
# libtracecmd is linked in statically (trace-cmd's Makefile); if it is
# ever needed as a shared object, it must be ours too.
if grep -q "libtraceevent.so.1 => $prefix/lib/" "$T/ldd" &&
   ! grep "libtracecmd.so" "$T/ldd" | grep -qv "=> $prefix/lib/" &&
   ! grep -q 'not found' "$T/ldd"; then
	pass tracecmd-libs-from-prefix
else
	fail tracecmd-libs-from-prefix "$(tr '\n' ' ' < "$T/ldd")"
fi
stubs='^(tracefs_instance_[gs]et_subbuf_size|tep_load_btf|tep_btf_list_args|tep_btf_print_args|tep_load_modules|tep_parse_last_boot_info)$'
exported=$(for f in "$tc" "$prefix"/lib/*.so.*; do
	nm -D --defined-only "$f" 2>/dev/null | awk '{ print $3 }'
done | grep -E "$stubs" | sort -u)
[ -z "$exported" ] && pass tracecmd-compat-not-exported ||
	fail tracecmd-compat-not-exported "$(echo $exported)"

# The libtraceevent plugin, built outside the tree.
mkdir -p "$T/plugin" "$T/noplugin" "$T/home"
export HOME=$T/home		# no user plugins
make -C "$REPO/trace-cmd/plugins" -s PLUGIN="$T/plugin/plugin_unwind_deferred.so" all \
	>"$T/plugin.log" 2>&1 || { cat "$T/plugin.log"; fail tracecmd-plugin-build; }

# 3.4 prints the latency flags after "[CPU]" by default; 3.1.6 does not.
drop_flags() { sed -E 's/^(.{0,40}\[[0-9]{3}\]) [^ ]{5} /\1 /'; }
nfix=0
for dat in "$REPO"/tests/fixtures/*.dat; do
	[ -f "$dat" ] || continue
	n=$(basename "$dat" .dat)
	nfix=$((nfix + 1))
	for pd in noplugin plugin; do
		name=tracecmd-report-$n
		[ $pd = plugin ] && name=$name-plugin
		TRACEEVENT_PLUGIN_DIR=$T/$pd "$stock" report "$dat" > "$T/old" 2>"$T/olderr"
		TRACEEVENT_PLUGIN_DIR=$T/$pd "$tc" report "$dat" 2>"$T/newerr" | drop_flags > "$T/new"
		rc=${PIPESTATUS[0]}
		if [ "$rc" != 0 ]; then
			fail "$name" "exit status $rc: $(head -3 "$T/newerr" | tr '\n' ' ')"
		elif ! [ -s "$T/old" ]; then
			fail "$name" "stock trace-cmd printed nothing: $(head -3 "$T/olderr" | tr '\n' ' ')"
		elif diff -u "$T/old" "$T/new" > "$T/diff"; then
			pass "$name"
		else
			fail "$name" "$(grep -c '^[-+][^-+]' "$T/diff") lines differ: $(sed -n '4,8p' "$T/diff" | tr '\n' ' ')"
		fi
	done
done
[ $nfix -gt 0 ] || fail tracecmd-report "no tests/fixtures/*.dat"

if [ -r /sys/kernel/tracing/trace_options ]; then
	if diff <("$stock" list -o 2>&1) <("$tc" list -o 2>&1) > "$T/diff"; then
		pass tracecmd-list-options
	else
		fail tracecmd-list-options "$(head -5 "$T/diff" | tr '\n' ' ')"
	fi
else
	echo "SKIP tracecmd-list-options # /sys/kernel/tracing/trace_options not readable"
fi
finish
