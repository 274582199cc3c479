#!/usr/bin/env bash
# nsc-codali.sh — NATS operator-mode (JWT) identities for Codali.
#
# Creates, with nsc (https://github.com/nats-io/nsc), in a new directory:
#   nsc/            the operator, the SYS and CODALI accounts and their keys
#                   (the seeds are secrets: keep this directory safe, and out
#                   of version control)
#   creds/<user>.creds
#                   one credentials file per Codali service (librarian,
#                   architect, builder, critic, recorder), one for the
#                   provisioning Job (provisioner), one for agents and the
#                   CLI (cli) and one unrestricted operations user (admin)
#   resolver.conf   server configuration: operator JWT, system account and a
#                   MEMORY resolver preloaded with both account JWTs; the Helm
#                   values in this directory include it
#   account.txt     the CODALI account's public key (the KEDA "account")
#
# Every user gets publish and subscribe allow lists limited to what its
# service does (see docs/deployment.md, "NATS permissions"). The lists are
# in permissions.sh, generated from pkg/natsauth; a Go test connects as
# each identity to a real server and checks what it can and cannot do.
#
# Usage: nsc-codali.sh [OUTPUT_DIR]        (default ./codali-nats-auth)
# Environment: CODALI_NATS_OPERATOR (default codali), CODALI_JS_DISK
# (account file storage limit, default 40GiB), CODALI_JS_MEM (account
# memory storage limit, default 256MiB). Keep both within the servers'
# JetStream stores (values.yaml: 50Gi file, 1Gi memory): a server refuses
# JetStream to an account whose limits exceed them ("insufficient memory
# resources available").
set -euo pipefail

out="${1:-./codali-nats-auth}"
operator="${CODALI_NATS_OPERATOR:-codali}"
account="CODALI"
js_disk="${CODALI_JS_DISK:-40GiB}"
js_mem="${CODALI_JS_MEM:-256MiB}"

if ! command -v nsc >/dev/null 2>&1; then
  echo "nsc-codali.sh: nsc is not installed (go install github.com/nats-io/nsc/v2@latest)" >&2
  exit 1
fi
if [ -e "$out" ]; then
  echo "nsc-codali.sh: $out exists; refusing to overwrite keys" >&2
  exit 1
fi
mkdir -p "$out/creds"
chmod 700 "$out"

nsc_() { nsc --all-dirs "$out/nsc" "$@"; }

# join joins its arguments with commas (nsc takes comma-separated lists;
# subjects never contain commas).
join() { local IFS=,; echo "$*"; }

############################################################
# Operator and accounts
############################################################

nsc_ add operator --name "$operator" --sys
nsc_ add account --name "$account"
nsc_ edit account --name "$account" --js-disk-storage "$js_disk" --js-mem-storage "$js_mem" \
  --js-streams -1 --js-consumer -1

# add_user NAME PUBLISH-SUBJECTS... -- SUBSCRIBE-SUBJECTS...
add_user() {
  local name="$1"; shift
  local pub=() sub=()
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do pub+=("$1"); shift; done
  [ "$#" -gt 0 ] && shift
  sub=("$@")
  nsc_ add user --account "$account" --name "$name" \
    --allow-pub "$(join "${pub[@]}")" --allow-sub "$(join "${sub[@]}")"
  nsc_ generate creds --account "$account" --name "$name" --output-file "$out/creds/$name.creds"
}

# The users and their allow lists: generated from pkg/natsauth, the one
# definition the Go tests check against a real server.
# shellcheck source=permissions.sh
. "$(dirname "$0")/permissions.sh"

############################################################
# Server configuration
############################################################

nsc_ generate config --mem-resolver --sys-account SYS --config-file "$out/resolver.conf"
nsc_ describe account --name "$account" --field sub | tr -d '"' >"$out/account.txt"

cat <<EOF
Done: $out
  resolver.conf   include in the NATS server configuration (see values.yaml)
  creds/*.creds   one Kubernetes Secret per service, key nats.creds
  CODALI account  $(cat "$out/account.txt")  (KEDA trigger "account")
EOF
