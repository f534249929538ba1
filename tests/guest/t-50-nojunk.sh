#!/bin/bash
# Guarantee 4: kernel threads and io_uring workers get no cookie and no
# user stack, while the same events of user tasks do.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/defer.sh"
reset_tracing

t_begin nojunk-kernel-threads
mkinst kt &&
d=$(idir kt) &&
echo 1 > $d/options/stacktrace &&
echo 1 > $d/options/userstacktrace_defer &&
echo 1 > $d/events/sched/sched_switch/enable &&
echo 1 > $d/events/timer/enable &&
echo 1 > $d/events/workqueue/enable &&
"$WL"/callchain getppid 3 && sleep 1 &&
echo 0 > $d/events/enable &&
f=$(save kt nojunk-kthreads) &&
check "no cookie from kernel threads" $TC nojunk "$f" &&
check "user tasks got cookies" test "$(grep -c user_stack_cookie "$f")" -ge 1 &&
t_pass

t_begin nojunk-io-uring-worker
reset_tracing
mkinst uw &&
trig uw sched/sched_switch 'stacktrace:defer if prev_comm ~ "iou-wrk*"' &&
"$WL"/uring_worker &&
f=$(save uw nojunk-io-uring) &&
check "no cookie from io_uring workers" $TC nojunk "$f" --worker-func io_wq_worker &&
t_pass

reset_tracing
t_summary
