#!/usr/bin/env bash
# sign-windows.sh FILE GOOS: Authenticode-sign a Windows binary in place with osslsigncode,
# when the release has a code-signing certificate; otherwise, or for another OS's binary, leave
# it as it is. GoReleaser runs it after each build (packaging/.goreleaser.yaml).
#
# Why: Smart App Control on a clean Windows 11 blocks an unsigned exe that Claude Desktop
# starts (error 4551, with no "run anyway"); a signature from a certificate Windows trusts is
# what lets it run.
#
# Secrets (all from the environment; none is ever printed):
#   WINDOWS_SIGN_PFX            the certificate and its key, a PKCS#12 file, base64-encoded
#   WINDOWS_SIGN_PASSWORD       the PKCS#12 file's password
#   WINDOWS_SIGN_TIMESTAMP_URL  an RFC 3161 timestamping service (default DigiCert's), so the
#                               signature outlives the certificate; "none" to sign without
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 FILE GOOS" >&2; exit 2; }
file=$1 goos=$2
[ "$goos" = windows ] || exit 0
if [ -z "${WINDOWS_SIGN_PFX:-}" ]; then
  echo "sign-windows: WINDOWS_SIGN_PFX is not set: $(basename "$file") stays unsigned" >&2
  exit 0
fi
command -v osslsigncode >/dev/null || { echo "sign-windows: a certificate is set but osslsigncode is not installed (apt install osslsigncode)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/avenir-sign.XXXXXX")
trap 'rm -rf "$work"' EXIT
umask 077
printf '%s' "$WINDOWS_SIGN_PFX" | base64 -d > "$work/cert.pfx"
printf '%s' "${WINDOWS_SIGN_PASSWORD:-}" > "$work/pass"
ts=(-ts "${WINDOWS_SIGN_TIMESTAMP_URL:-http://timestamp.digicert.com}")
[ "${WINDOWS_SIGN_TIMESTAMP_URL:-}" = none ] && ts=()
osslsigncode sign -pkcs12 "$work/cert.pfx" -readpass "$work/pass" -h sha256 \
  -n avenir -i https://github.com/avenir-mcp/avenir "${ts[@]}" \
  -in "$file" -out "$work/signed.exe" >/dev/null
mv "$work/signed.exe" "$file"
echo "sign-windows: $(basename "$file") signed" >&2
