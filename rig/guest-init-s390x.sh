#!/bin/busybox sh
# /init of the s390x test initramfs built by rig/run-guest.sh --arch s390x
# (PID 1, busybox-static for s390x).  The host's userspace cannot run on
# s390x, so nothing is shared: the initramfs carries busybox, this script,
# the command (/ftd/cmd.sh) and the files given with --add (under /ftd).
# Everything reaches the host through the console, between marker lines
# that rig/run-guest.sh cuts out:
#   ftd-init: running the command      the command's output follows
#   ftd-init: command exited with status N
#   ftd-init: dmesg begin ... ftd-init: dmesg end
# then it powers off.  The kernel boots with loglevel=4, so that only
# errors print to the console and cut into the command's lines; all its
# messages are in the dmesg copy, which the host scans.
/bin/busybox --install -s /bin
export PATH=/bin
say() { echo "ftd-init: $*"; }
halt() { sync; poweroff -f; sleep 10; }	# PID 1 must never exit

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing || say "warning: no tracefs"
hostname ftd-guest-s390x

[ -f /ftd/cmd.sh ] || { say "FATAL: no /ftd/cmd.sh"; halt; }
say "ready after $(cut -d' ' -f1 /proc/uptime) s of guest uptime, $(nproc) CPUs; running the command"
cd /ftd && /bin/sh /ftd/cmd.sh 2>&1 </dev/null
rc=$?
say "command exited with status $rc at $(cut -d' ' -f1 /proc/uptime) s"
say "dmesg begin"
dmesg
say "dmesg end"
halt
