#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages named on the command line that are missing.
# Cheap when everything is there (dpkg -s only); apt-get update runs once.
set -e
missing=
for p in "$@"; do
	dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing missing packages:$missing" >&2
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive \
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing >&2
