#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# Print the C program of a man page's EXAMPLE section: the first
# [source,c] block after the EXAMPLE heading, without its -- delimiters
# (as libtracefs' samples/extract-example.sh).  Prints nothing when the
# page has none.   usage: extract-example.sh PAGE.txt
awk '/^EXAMPLE$/ { ex = 1; next }
     ex && /^[A-Z][A-Z ]+$/ { exit }
     ex && /^\[source,c\]$/ { src = 1; next }
     src && /^--$/ { if (body) exit; body = 1; next }
     body { print }' "$1"
