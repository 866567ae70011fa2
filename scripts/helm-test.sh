#!/bin/sh
# The Helm chart's checks (make test): `helm lint --strict` and `helm template` of
# deploy/helm/mcec with each values file in its ci/ directory, compared with the golden output in
# its testdata/ directory; and the chart refuses to render without a token.
# scripts/helm-test.sh --update rewrites the golden files (review the diff before committing).
# helm is the pinned one of scripts/helm.sh (built once from the Go module proxy, then cached).
set -eu
cd "$(dirname "$0")/.."
chart=deploy/helm/mcec
helm=$(scripts/helm.sh --path)
update=false
[ "${1:-}" = "--update" ] && update=true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for values in "$chart"/ci/*-values.yaml; do
	name=$(basename "$values" -values.yaml)
	"$helm" lint --strict "$chart" -f "$values" >"$tmp/lint" 2>&1 || {
		cat "$tmp/lint"
		echo "helm-test: helm lint failed with $values" >&2
		fail=1
		continue
	}
	"$helm" template golden "$chart" --namespace agents -f "$values" >"$tmp/$name.yaml"
	golden=$chart/testdata/$name.yaml
	if $update; then
		cp "$tmp/$name.yaml" "$golden"
		echo "helm-test: wrote $golden"
	elif ! diff -u "$golden" "$tmp/$name.yaml"; then
		echo "helm-test: helm template with $values differs from $golden (scripts/helm-test.sh --update rewrites it)" >&2
		fail=1
	fi
done
# refuses WHAT REASON [--set ...]: the chart must not render with these values, and must say
# REASON (a values key) in its refusal.
refuses() {
	what=$1 reason=$2
	shift 2
	if "$helm" template golden "$chart" "$@" >"$tmp/refused" 2>&1; then
		echo "helm-test: the chart rendered $what" >&2
		fail=1
	elif ! grep -q "$reason" "$tmp/refused"; then
		cat "$tmp/refused"
		echo "helm-test: the chart refused $what, but not for that reason" >&2
		fail=1
	fi
}
# No token, no chart: mcec must not be deployed serving the network without one.
refuses "without a token" token.existingSecret
# A console needs its own credential: the chart refuses one without the operator key's hash.
refuses "a console without the operator key's hash" console.keySha256 \
	--set token.value=golden-test-token-0123456789 --set console.enabled=true --set console.keySha256=not-a-hash
[ $fail -eq 0 ] && echo "helm-test: chart lint and goldens ok"
exit $fail
