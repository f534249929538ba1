# SPDX-License-Identifier: GPL-2.0
# Sourced by the lib suite's scripts: VG, the valgrind command line the
# suite runs its programs under (empty with NO_VALGRIND set).
VG=()
if [ -z "${NO_VALGRIND:-}" ]; then
	VG=(valgrind -q --leak-check=full --show-leak-kinds=definite,indirect
	    --errors-for-leak-kinds=definite,indirect --error-exitcode=99)
fi
