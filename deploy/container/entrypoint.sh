#!/bin/sh
# mcec's container entrypoint: one private headless desktop per container, served on the
# network with the bearer token read from a mounted file. It refuses to start without a token.
#
#   MCEC_TOKEN_FILE  the token file (default /run/secrets/mcec/token; a Kubernetes Secret or
#                    `podman run --secret`); its first line is the token, at least 16 characters
#   MCEC_PORT        the HTTP port (default 5151)
#   MCEC_BIND        the address to bind (default 0.0.0.0: every interface of the container)
#   MCEC_LAUNCH      programs to start inside the desktop, one per line (each split on spaces)
#   MCEC_BIN         the mcec binary (default /usr/local/bin/mcec)
#   MCEC_CONSOLE_KEY_SHA256_FILE  turns on the operator console (mcec serve --console): a file
#                    with the SHA-256 of the operator key (mcec console-key), never the key;
#                    MCEC_CONSOLE_BIND (default 0.0.0.0), MCEC_CONSOLE_PORT (default 5152) and
#                    MCEC_CONSOLE_PEERS (NAME=URL,...) are read by mcec itself
# Further arguments go to `mcec serve` as they are (e.g. --no-glx, --screen 1920x1080x24).
#
# The token travels to mcec in its environment, never on its command line (visible to ps).
set -eu

token_file=${MCEC_TOKEN_FILE:-/run/secrets/mcec/token}
refuse() {
	echo "mcec-entrypoint: $*; refusing to serve the network without a token" >&2
	exit 78 # EX_CONFIG
}
[ -f "$token_file" ] || refuse "no token file at $token_file (mount a Secret there, or set MCEC_TOKEN_FILE)"
[ -r "$token_file" ] || refuse "the token file $token_file is not readable by uid $(id -u)"
# The first line, without CR/LF or surrounding blanks.
token=$(head -n 1 "$token_file" | tr -d '\r\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ -n "$token" ] || refuse "the token file $token_file is empty"
[ "${#token}" -ge 16 ] || refuse "the token in $token_file is shorter than 16 characters"
case $token in
*[[:space:]]*) refuse "the token in $token_file contains blanks" ;;
esac
MCEC_TOKEN=$token
export MCEC_TOKEN
unset token

bin=${MCEC_BIN:-/usr/local/bin/mcec}
set -- serve --headless --bind "${MCEC_BIND:-0.0.0.0}" --port "${MCEC_PORT:-5151}" "$@"
if [ -n "${MCEC_CONSOLE_KEY_SHA256_FILE:-}" ]; then
	# A console nobody reaches is no use: on every interface unless told otherwise. The key's
	# hash guards it (mcec refuses a console beyond loopback without one).
	MCEC_CONSOLE_BIND=${MCEC_CONSOLE_BIND:-0.0.0.0}
	export MCEC_CONSOLE_BIND
	set -- "$@" --console
fi
if [ -n "${MCEC_LAUNCH:-}" ]; then
	saved_ifs=$IFS
	IFS='
'
	set -f # no globbing of the programs' arguments
	for app in $MCEC_LAUNCH; do
		case $app in
		*[![:space:]]*) set -- "$@" --launch "$app" ;;
		esac
	done
	set +f
	IFS=$saved_ifs
fi
exec "$bin" "$@"
