#!/bin/bash
R=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
$R/bench/sframe-table/guest-python.sh
$R/bench/sframe-table/guest-rows.sh
