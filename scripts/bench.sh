#!/usr/bin/env bash
# Runs the black-box benchmarks (bench/): the real plandash binary against a yardstick doing
# the same job, side by side, alternating runs, ratios printed. Not part of CI: the figures
# mean something only on a quiet machine.
#
#   scripts/bench.sh            # every benchmark, 3 runs each, full sizes
#   scripts/bench.sh -quick     # small sizes: checks that they work
#   scripts/bench.sh -runs 5 ingest fanout
set -euo pipefail
cd "$(dirname "$0")/.."

# Graphviz's dot is the layout yardstick.
if ! command -v dot >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y graphviz >/dev/null || { apt-get update >/dev/null && apt-get install -y graphviz >/dev/null; }
	else
		sudo apt-get install -y graphviz >/dev/null
	fi
fi
# The fan-out case opens 2,000 sockets (both ends).
ulimit -n 8192 2>/dev/null || true

exec go run ./bench -repo . "$@"
