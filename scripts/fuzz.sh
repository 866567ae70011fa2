#!/usr/bin/env bash
# Fuzz each TARGET:PACKAGE for FUZZTIME (Go fuzzes one target per run).
#
# Go 1.26's fuzz coordinator can report a bare "context deadline exceeded" failure when the
# -fuzztime window closes while a worker is mid-call (golang/go#75804, fixed in Go 1.27). A real
# finding always prints "Failing input written to …" (or a panic). Only that bare boundary error
# is retried, once; anything else fails at once, and a second boundary error fails too.
set -uo pipefail
go=${GO:-go}
fuzztime=${FUZZTIME:-5s}
for t in "$@"; do
	name=${t%%:*} pkg=${t#*:}
	for attempt in 1 2; do
		echo "fuzz $name ($fuzztime)"
		log=$(mktemp)
		"$go" test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
		if [ "$status" -eq 0 ]; then
			rm -f "$log"
			break
		fi
		if [ "$attempt" -eq 1 ] && grep -q 'context deadline exceeded' "$log" &&
			! grep -qE 'Failing input written|panic:' "$log"; then
			echo "fuzz $name: the fuzz coordinator's end-of-window race (golang/go#75804), no failing input; running it once more"
			rm -f "$log"
			continue
		fi
		rm -f "$log"
		exit "$status"
	done
done
