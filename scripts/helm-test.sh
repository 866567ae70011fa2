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
# No token, no chart: mcec must not be deployed serving the network without one.
if "$helm" template golden "$chart" >"$tmp/none" 2>&1; then
	echo "helm-test: the chart rendered without a token" >&2
	fail=1
elif ! grep -q "token.existingSecret" "$tmp/none"; then
	cat "$tmp/none"
	echo "helm-test: the chart failed without a token, but not for that reason" >&2
	fail=1
fi
# A console needs its own credential: the chart refuses one without the operator key's hash.
if "$helm" template golden "$chart" --set token.value=golden-test-token-0123456789 --set console.enabled=true \
	--set console.keySha256=not-a-hash >"$tmp/console" 2>&1; then
	echo "helm-test: the chart rendered a console without the operator key's hash" >&2
	fail=1
elif ! grep -q "console.keySha256" "$tmp/console"; then
	cat "$tmp/console"
	echo "helm-test: the chart failed without the console's hash, but not for that reason" >&2
	fail=1
fi
[ $fail -eq 0 ] && echo "helm-test: chart lint and goldens ok"
exit $fail
