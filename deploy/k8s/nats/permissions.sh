# Generated from pkg/natsauth (Identities); do not edit. Regenerate with
#   go test ./pkg/natsauth -run TestDeployPermissionsMatch -update
# Sourced by nsc-codali.sh, which defines add_user NAME PUB... -- SUB...

# librarian: claims run ids, indexes repositories, publishes context
add_user librarian \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.librarian' \
  '$JS.API.CONSUMER.MSG.NEXT.CODALI.librarian' \
  '$JS.ACK.CODALI.librarian.>' \
  '$JS.ACK.*.*.CODALI.librarian.>' \
  'codali.dlq.librarian' \
  'codali.progress.*.librarian' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  'codali.run.*.context' \
  'codali.run.*.failed' \
  '$KV.codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  '$JS.API.DIRECT.GET.KV_codali-pm.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-pm' \
  '$JS.API.DIRECT.GET.KV_codali-policies.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-policies' \
  '$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' \
  '$JS.API.STREAM.MSG.GET.OBJ_codali-artifacts' \
  '$O.codali-artifacts.>' \
  '$JS.API.STREAM.PURGE.OBJ_codali-artifacts' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  -- \
  '_INBOX_librarian.>'

# architect: plans; publishes plan
add_user architect \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.architect' \
  '$JS.API.CONSUMER.MSG.NEXT.CODALI.architect' \
  '$JS.ACK.CODALI.architect.>' \
  '$JS.ACK.*.*.CODALI.architect.>' \
  'codali.dlq.architect' \
  'codali.progress.*.architect' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  'codali.run.*.plan' \
  'codali.run.*.failed' \
  '$JS.API.DIRECT.GET.KV_codali-pm.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-pm' \
  '$KV.codali-pm.>' \
  '$JS.API.DIRECT.GET.KV_codali-policies.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-policies' \
  '$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' \
  '$JS.API.STREAM.MSG.GET.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.DELETE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.INFO.OBJ_codali-artifacts.>' \
  '$JS.FC.OBJ_codali-artifacts.>' \
  '$JS.FC.*.*.OBJ_codali-artifacts.>' \
  '$O.codali-artifacts.>' \
  '$JS.API.STREAM.PURGE.OBJ_codali-artifacts' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  -- \
  '_INBOX_architect.>'

# builder: edits workspaces; publishes built; parks runs for approval (never decides one)
add_user builder \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.builder' \
  '$JS.API.CONSUMER.MSG.NEXT.CODALI.builder' \
  '$JS.ACK.CODALI.builder.>' \
  '$JS.ACK.*.*.CODALI.builder.>' \
  'codali.dlq.builder' \
  'codali.progress.*.builder' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  'codali.run.*.built' \
  'codali.run.*.failed' \
  'codali.run.*.approval_requested' \
  'codali.timer.*.schedule.*' \
  '$JS.API.DIRECT.GET.KV_codali-parks.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-parks' \
  '$KV.codali-parks.>' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  '$JS.API.DIRECT.GET.KV_codali-pm.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-pm' \
  '$JS.API.DIRECT.GET.KV_codali-policies.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-policies' \
  '$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' \
  '$JS.API.STREAM.MSG.GET.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.DELETE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.INFO.OBJ_codali-artifacts.>' \
  '$JS.FC.OBJ_codali-artifacts.>' \
  '$JS.FC.*.*.OBJ_codali-artifacts.>' \
  '$O.codali-artifacts.>' \
  '$JS.API.STREAM.PURGE.OBJ_codali-artifacts' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  -- \
  '_INBOX_builder.>'

# critic: verifies; publishes the verdict or a retry
add_user critic \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.critic' \
  '$JS.API.CONSUMER.MSG.NEXT.CODALI.critic' \
  '$JS.ACK.CODALI.critic.>' \
  '$JS.ACK.*.*.CODALI.critic.>' \
  'codali.dlq.critic' \
  'codali.progress.*.critic' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  'codali.run.*.passed' \
  'codali.run.*.retry' \
  'codali.run.*.failed' \
  '$JS.API.DIRECT.GET.KV_codali-pm.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-pm' \
  '$KV.codali-pm.>' \
  '$JS.API.DIRECT.GET.KV_codali-policies.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-policies' \
  '$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' \
  '$JS.API.STREAM.MSG.GET.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.DELETE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.INFO.OBJ_codali-artifacts.>' \
  '$JS.FC.OBJ_codali-artifacts.>' \
  '$JS.FC.*.*.OBJ_codali-artifacts.>' \
  '$O.codali-artifacts.>' \
  '$JS.API.STREAM.PURGE.OBJ_codali-artifacts' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  -- \
  '_INBOX_critic.>'

# recorder: writes the audit history and run summaries; ends no run
add_user recorder \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.recorder' \
  '$JS.API.CONSUMER.MSG.NEXT.CODALI.recorder' \
  '$JS.ACK.CODALI.recorder.>' \
  '$JS.ACK.*.*.CODALI.recorder.>' \
  'codali.dlq.recorder' \
  'codali.progress.*.recorder' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  'rao.>' \
  '$JS.API.STREAM.PURGE.RAO' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  '$KV.codali-runs.>' \
  '$KV.codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  -- \
  '_INBOX_recorder.>'

# provisioner: creates and updates streams, buckets and durable consumers (a Job, or the operator)
add_user provisioner \
  '$JS.API.INFO' \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.CREATE.CODALI' \
  '$JS.API.STREAM.UPDATE.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.CREATE.CODALI_DLQ' \
  '$JS.API.STREAM.UPDATE.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.CREATE.RAO' \
  '$JS.API.STREAM.UPDATE.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.CREATE.CODALI_TIMERS' \
  '$JS.API.STREAM.UPDATE.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.CREATE.KV_codali-pm' \
  '$JS.API.STREAM.UPDATE.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.CREATE.KV_codali-runs' \
  '$JS.API.STREAM.UPDATE.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.CREATE.KV_codali-requests' \
  '$JS.API.STREAM.UPDATE.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-policies' \
  '$JS.API.STREAM.CREATE.KV_codali-policies' \
  '$JS.API.STREAM.UPDATE.KV_codali-policies' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.CREATE.KV_codali-parks' \
  '$JS.API.STREAM.UPDATE.KV_codali-parks' \
  '$JS.API.STREAM.INFO.KV_codali-keys' \
  '$JS.API.STREAM.CREATE.KV_codali-keys' \
  '$JS.API.STREAM.UPDATE.KV_codali-keys' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.STREAM.CREATE.OBJ_codali-artifacts' \
  '$JS.API.STREAM.UPDATE.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.CODALI.librarian' \
  '$JS.API.CONSUMER.CREATE.CODALI.librarian.>' \
  '$JS.API.CONSUMER.INFO.CODALI.librarian' \
  '$JS.API.CONSUMER.CREATE.CODALI.architect' \
  '$JS.API.CONSUMER.CREATE.CODALI.architect.>' \
  '$JS.API.CONSUMER.INFO.CODALI.architect' \
  '$JS.API.CONSUMER.CREATE.CODALI.builder' \
  '$JS.API.CONSUMER.CREATE.CODALI.builder.>' \
  '$JS.API.CONSUMER.INFO.CODALI.builder' \
  '$JS.API.CONSUMER.CREATE.CODALI.critic' \
  '$JS.API.CONSUMER.CREATE.CODALI.critic.>' \
  '$JS.API.CONSUMER.INFO.CODALI.critic' \
  '$JS.API.CONSUMER.CREATE.CODALI.recorder' \
  '$JS.API.CONSUMER.CREATE.CODALI.recorder.>' \
  '$JS.API.CONSUMER.INFO.CODALI.recorder' \
  '$JS.API.DIRECT.GET.KV_codali-keys.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-keys' \
  '$KV.codali-keys.>' \
  -- \
  '_INBOX_provisioner.>'

# cli: agents and the CLI: submit requests, decide parked calls, follow runs, read histories
add_user cli \
  '$JS.API.INFO' \
  '$JS.API.STREAM.INFO.CODALI' \
  '$JS.API.STREAM.INFO.CODALI_DLQ' \
  '$JS.API.STREAM.INFO.RAO' \
  '$JS.API.STREAM.INFO.CODALI_TIMERS' \
  '$JS.API.STREAM.INFO.KV_codali-pm' \
  '$JS.API.STREAM.INFO.KV_codali-runs' \
  '$JS.API.STREAM.INFO.KV_codali-requests' \
  '$JS.API.STREAM.INFO.KV_codali-parks' \
  '$JS.API.STREAM.INFO.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.INFO.CODALI.librarian' \
  'codali.run.*.requested' \
  'codali.run.*.approval_decided' \
  '$JS.API.STREAM.MSG.GET.CODALI' \
  '$JS.API.STREAM.MSG.GET.RAO' \
  '$JS.API.DIRECT.GET.RAO.>' \
  '$JS.API.CONSUMER.CREATE.RAO.>' \
  '$JS.API.CONSUMER.MSG.NEXT.RAO.>' \
  '$JS.API.CONSUMER.DELETE.RAO.>' \
  '$JS.API.CONSUMER.INFO.RAO.>' \
  '$JS.API.DIRECT.GET.KV_codali-runs.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-runs' \
  '$JS.API.CONSUMER.CREATE.KV_codali-runs' \
  '$JS.API.CONSUMER.CREATE.KV_codali-runs.>' \
  '$JS.API.CONSUMER.DELETE.KV_codali-runs.>' \
  '$JS.API.CONSUMER.INFO.KV_codali-runs.>' \
  '$JS.FC.KV_codali-runs.>' \
  '$JS.FC.*.*.KV_codali-runs.>' \
  '$JS.API.DIRECT.GET.KV_codali-requests.>' \
  '$JS.API.STREAM.MSG.GET.KV_codali-requests' \
  '$JS.API.DIRECT.GET.OBJ_codali-artifacts.>' \
  '$JS.API.STREAM.MSG.GET.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts' \
  '$JS.API.CONSUMER.CREATE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.DELETE.OBJ_codali-artifacts.>' \
  '$JS.API.CONSUMER.INFO.OBJ_codali-artifacts.>' \
  '$JS.FC.OBJ_codali-artifacts.>' \
  '$JS.FC.*.*.OBJ_codali-artifacts.>' \
  -- \
  '_INBOX_cli.>' \
  'codali.run.>' \
  'codali.progress.>'

# admin: the operator (people only): everything in the account
add_user admin \
  '>' \
  -- \
  '>'
