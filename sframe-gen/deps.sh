#!/bin/bash
# Install the Debian packages sframe-gen, its tests and its benchmark need,
# when they are missing (rig/common.sh's need_pkgs: apt-get as root or sudo).
set -e
. "$(dirname "${BASH_SOURCE[0]}")/../rig/common.sh"
need_pkgs gcc make pkg-config libdw-dev libelf-dev libtracefs-dev elfutils binutils valgrind python3 strace gdb
