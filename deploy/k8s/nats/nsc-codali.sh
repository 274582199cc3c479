#!/usr/bin/env bash
# nsc-codali.sh — NATS operator-mode (JWT) identities for Codali.
#
# Creates, with nsc (https://github.com/nats-io/nsc), in a new directory:
#   nsc/            the operator, the SYS and CODALI accounts and their keys
#                   (the seeds are secrets: keep this directory safe, and out
#                   of version control)
#   creds/<user>.creds
#                   one credentials file per Codali service (librarian,
#                   architect, builder, critic, recorder), one for the CLI
#                   (cli) and one unrestricted operations user (admin)
#   resolver.conf   server configuration: operator JWT, system account and a
#                   MEMORY resolver preloaded with both account JWTs; the Helm
#                   values in this directory include it
#   account.txt     the CODALI account's public key (the KEDA "account")
#
# Every user gets publish and subscribe allow lists limited to what its
# service does (see docs/deployment.md, "NATS permissions"). These lists
# are derived from the JetStream API subjects the Go client uses; verify
# them on a real cluster before relying on them.
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
# Subjects
############################################################

# Streams every service provisions at start-up (bus.Provision creates or
# updates all of them, then opens the artifacts and project-state buckets).
streams=(CODALI CODALI_DLQ RAO KV_codali-pm KV_codali-runs OBJ_codali-artifacts)

# provision: account info (bucket creation asks for it) and create, update
# and info of the Codali streams — nothing else.
provision=('$JS.API.INFO')
for s in "${streams[@]}"; do
  provision+=("\$JS.API.STREAM.INFO.$s" "\$JS.API.STREAM.CREATE.$s" "\$JS.API.STREAM.UPDATE.$s")
done

# consumer_subjects NAME sets cons to the subjects of the durable consumer
# NAME on CODALI: create/update it, look it up, pull from it, and
# acknowledge its messages (ack, nak, term and in-progress all publish to
# the ack reply subject). The second ack pattern is the v2 ack format
# ($JS.ACK.<domain>.<account hash>.<stream>...), used only when the server
# enables it.
cons=()
consumer_subjects() {
  local n="$1"
  cons=("\$JS.API.CONSUMER.CREATE.CODALI.$n" "\$JS.API.CONSUMER.CREATE.CODALI.$n.>"
    "\$JS.API.CONSUMER.INFO.CODALI.$n" "\$JS.API.CONSUMER.MSG.NEXT.CODALI.$n"
    "\$JS.ACK.CODALI.$n.>" "\$JS.ACK.*.*.CODALI.$n.>")
}

# Project state (KV codali-pm): direct gets of keys; writes.
pm_read=('$JS.API.DIRECT.GET.KV_codali-pm.>')
pm_write=('$KV.codali-pm.>')

# Artifacts (object store codali-artifacts): reading looks up the object's
# metadata (direct get) and streams its chunks through an ephemeral ordered
# consumer (create, delete, flow-control replies); writing publishes chunks
# and metadata and purges the chunks of a replaced object.
art_read=('$JS.API.DIRECT.GET.OBJ_codali-artifacts.>'
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts' '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts.>'
  '$JS.API.CONSUMER.DELETE.OBJ_codali-artifacts.>' '$JS.API.CONSUMER.INFO.OBJ_codali-artifacts.>'
  '$JS.FC.OBJ_codali-artifacts.>' '$JS.FC.*.*.OBJ_codali-artifacts.>')
art_write=('$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' '$O.codali-artifacts.>'
  '$JS.API.STREAM.PURGE.OBJ_codali-artifacts')

# Audit history (stream RAO): read the last entry of a run, replay a run
# through an ephemeral ordered pull consumer.
rao_read=('$JS.API.STREAM.MSG.GET.RAO' '$JS.API.DIRECT.GET.RAO.>'
  '$JS.API.CONSUMER.CREATE.RAO.>' '$JS.API.CONSUMER.MSG.NEXT.RAO.>'
  '$JS.API.CONSUMER.DELETE.RAO.>' '$JS.API.CONSUMER.INFO.RAO.>')

# Run summaries (KV codali-runs): direct gets; listing keys watches the
# bucket through an ephemeral ordered push consumer; writes.
runs_read=('$JS.API.DIRECT.GET.KV_codali-runs.>')
runs_list=('$JS.API.CONSUMER.CREATE.KV_codali-runs' '$JS.API.CONSUMER.CREATE.KV_codali-runs.>'
  '$JS.API.CONSUMER.DELETE.KV_codali-runs.>' '$JS.API.CONSUMER.INFO.KV_codali-runs.>'
  '$JS.FC.KV_codali-runs.>' '$JS.FC.*.*.KV_codali-runs.>')
runs_write=('$KV.codali-runs.>')

# Replies to every request (JetStream API, publish acknowledgements, pull
# consumer deliveries) arrive on the client's inboxes.
sub_inbox=('_INBOX.>')

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

consumer_subjects librarian
add_user librarian "${provision[@]}" "${cons[@]}" \
  'codali.run.*.context' 'codali.run.*.failed' 'codali.dlq.librarian' \
  "${pm_read[@]}" "${art_write[@]}" \
  -- "${sub_inbox[@]}"

consumer_subjects architect
add_user architect "${provision[@]}" "${cons[@]}" \
  'codali.run.*.plan' 'codali.run.*.failed' 'codali.dlq.architect' \
  "${pm_read[@]}" "${pm_write[@]}" "${art_read[@]}" \
  -- "${sub_inbox[@]}"

consumer_subjects builder
add_user builder "${provision[@]}" "${cons[@]}" \
  'codali.run.*.built' 'codali.run.*.failed' 'codali.dlq.builder' \
  "${pm_read[@]}" "${art_read[@]}" "${art_write[@]}" \
  -- "${sub_inbox[@]}"

consumer_subjects critic
add_user critic "${provision[@]}" "${cons[@]}" \
  'codali.run.*.passed' 'codali.run.*.retry' 'codali.run.*.failed' 'codali.dlq.critic' \
  "${pm_read[@]}" "${pm_write[@]}" "${art_read[@]}" \
  -- "${sub_inbox[@]}"

# The recorder ends no runs (it publishes no failed events).
consumer_subjects recorder
add_user recorder "${provision[@]}" "${cons[@]}" \
  'codali.dlq.recorder' 'rao.>' '$JS.API.STREAM.PURGE.RAO' \
  "${rao_read[@]}" "${runs_read[@]}" "${runs_write[@]}" \
  -- "${sub_inbox[@]}"

# The CLI (codali submit, watch, runs, rao show/replay/verify) submits
# runs, checks that the librarian's consumer exists, follows a run's events
# with a plain subscription and reads histories, summaries and artifacts.
# It provisions nothing and writes no history (codali rao override needs
# the admin user).
add_user cli '$JS.API.INFO' '$JS.API.STREAM.INFO.*' '$JS.API.CONSUMER.INFO.CODALI.librarian' \
  'codali.run.*.requested' \
  "${rao_read[@]}" "${runs_read[@]}" "${runs_list[@]}" "${art_read[@]}" \
  -- "${sub_inbox[@]}" 'codali.run.*.>'

# Operations (nats CLI: stream reports, dead-letter inspection, purges).
# Unrestricted within the account: hand it to people, not to services.
add_user admin '>' -- '>'

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
