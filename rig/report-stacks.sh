# Functions that read `trace-cmd report` output of the series (an event
# line, then "<kernel stack>" and "<user stack>" blocks of "=> frame"
# lines), sourced by rig/demo.sh and tested by tests/rig/run.sh.
# They pick the stack of a named event: a recording with -T also has
# events the checks do not mean (sched_process_exec, whose user stack is
# the loader's _start alone), and their order is not fixed.

# event_block TEXT EVENT [COMM]: the first EVENT line of TEXT (of a task
# named COMM, when given) and its stack lines
event_block() {
	printf '%s\n' "$1" | awk -v ev=" $2: " -v comm="${3:-}" '
		!e { if (index($0, ev) && (comm == "" || index($1, comm "-") == 1)) { e = 1; print } ; next }
		/^ *(<kernel stack>|<user stack>|=> )/ { print; next }
		{ exit }'
}

# user_frames TEXT EVENT [COMM]: the user frames under the first EVENT of
# TEXT (of COMM), one "name+0xoff" (or address) a line; nothing when it
# has none
user_frames() {
	event_block "$1" "$2" "${3:-}" | awk '/^ *<user stack>/ { u = 1; next }
		u && /^ *=> / { print $2 }'
}
