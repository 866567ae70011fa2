#!/bin/sh
# Runs a pinned helm, built once from the Go module proxy into a cache directory (nothing is added
# to mcec's go.mod: `go install pkg@version` builds in its own module context). Later runs reuse
# the binary, so they need neither the proxy nor a compiler. Usage: scripts/helm.sh ARGS...
# `scripts/helm.sh --path` prints the binary's path (installing it first if needed).
set -eu
HELM_VERSION=v3.21.4
GO=${GO:-go}
dir=${MCEC_HELM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcec/helm-$HELM_VERSION}
helm=$dir/helm
if [ ! -x "$helm" ]; then
	mkdir -p "$dir"
	echo "scripts/helm.sh: building helm $HELM_VERSION from the Go module proxy into $dir (once)" >&2
	# CGO off: a static binary, and no C toolchain needed. GOFLAGS cleared so a caller's -mod or
	# -race does not leak into a build outside this module.
	GOFLAGS= CGO_ENABLED=0 GOBIN="$dir" "$GO" install -trimpath -ldflags='-s -w' "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi
if [ "${1:-}" = "--path" ]; then
	echo "$helm"
	exit 0
fi
exec "$helm" "$@"
