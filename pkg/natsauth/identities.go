// Package natsauth is the one definition of who may do what on NATS: one
// identity per Codali service, a provisioning identity, the agent/CLI
// identity and the operator. Each identity is a pair of publish and
// subscribe allow lists (everything else is denied). The deploy files are
// rendered from it (RenderNSC for nsc-codali.sh, ServerAccounts for a
// nats-server configuration), and its tests connect as each identity to a
// real server to prove what it can and cannot do.
package natsauth

import (
	"fmt"
	"github.com/codali-dev/codali/pkg/progress"

	"github.com/codali-dev/codali/pkg/events"
)

// Identity is one NATS user: its name and allow lists.
type Identity struct {
	// Name is the user name (and the creds file's name).
	Name string
	// Doc says what the identity is for.
	Doc string
	// Publish lists the subjects it may publish to.
	Publish []string
	// Subscribe lists the subjects it may subscribe to.
	Subscribe []string
}

// Identity names beside the services.
const (
	// Provisioner creates and updates the streams, buckets and durable
	// consumers; nothing else may.
	Provisioner = "provisioner"
	// CLI is agents and `codali submit|watch|runs|rao show`.
	CLI = "cli"
	// Admin is the operator: people, never a service.
	Admin = "admin"
)

// Streams are the JetStream streams behind Codali's streams and buckets.
func Streams() []string {
	return []string{events.StreamWork, events.StreamDeadLetter, events.StreamRAO, events.StreamTimers,
		"KV_" + events.BucketPMState, "KV_" + events.BucketRuns, "KV_" + events.BucketRequests,
		"KV_" + events.BucketPolicies, "KV_" + events.BucketParks, "KV_" + events.BucketKeys, "OBJ_" + events.BucketArtifacts}
}

const api = "$JS.API."

// InboxPrefix is the reply-inbox prefix a client connecting as identity
// name must use (nats.go: nats.CustomInboxPrefix): "_INBOX_" and the name.
// Each identity may subscribe only to its own prefix, never to the shared
// "_INBOX.>", so no identity can read the replies sent to another (the
// JetStream API replies carrying stored policies, project state, parks,
// run claims and artifacts).
func InboxPrefix(name string) string { return "_INBOX_" + name }

// inbox is the subscribe permission for an identity's own reply inboxes.
func inbox(name string) string { return InboxPrefix(name) + ".>" }

// consume is what a service needs to read its own durable consumer: look
// it up, pull, and acknowledge (ack, nak, term and in-progress publish to
// the ack reply subject; the second form is the v2 ack format).
func consume(service string) []string {
	w := events.StreamWork
	return []string{
		api + "CONSUMER.INFO." + w + "." + service,
		api + "CONSUMER.MSG.NEXT." + w + "." + service,
		"$JS.ACK." + w + "." + service + ".>",
		"$JS.ACK.*.*." + w + "." + service + ".>",
	}
}

// streamInfo lets a service bind the streams and buckets (read-only).
func streamInfo() []string {
	var out []string
	for _, s := range Streams() {
		out = append(out, api+"STREAM.INFO."+s)
	}
	return out
}

// kvRead reads a bucket's keys: by direct get (kv.Get, answered by any
// replica) and by a message get, which only the bucket's stream leader
// answers (bus.LeaderGet: a read that must see every acknowledged write).
func kvRead(bucket string) []string {
	return []string{api + "DIRECT.GET.KV_" + bucket + ".>", api + "STREAM.MSG.GET.KV_" + bucket}
}

func kvWrite(bucket string) []string {
	return append(kvRead(bucket), "$KV."+bucket+".>")
}

// kvList lists a bucket's keys through an ephemeral ordered consumer.
func kvList(bucket string) []string {
	s := "KV_" + bucket
	return []string{api + "CONSUMER.CREATE." + s, api + "CONSUMER.CREATE." + s + ".>",
		api + "CONSUMER.DELETE." + s + ".>", api + "CONSUMER.INFO." + s + ".>",
		"$JS.FC." + s + ".>", "$JS.FC.*.*." + s + ".>"}
}

// claimWrite claims run ids: it writes the claims bucket and reads the
// earliest stored request of a run (a stream message get on CODALI).
func claimWrite() []string {
	return append(kvWrite(events.BucketRequests), api+"STREAM.MSG.GET."+events.StreamWork)
}

// artifactsRead reads objects: metadata by direct get (and by the
// leader's message get, which tells an object a lagging replica lacks
// from a lost one), chunks through an ephemeral ordered consumer with
// flow control.
func artifactsRead() []string {
	s := "OBJ_" + events.BucketArtifacts
	return []string{api + "DIRECT.GET." + s + ".>", api + "STREAM.MSG.GET." + s,
		api + "CONSUMER.CREATE." + s, api + "CONSUMER.CREATE." + s + ".>",
		api + "CONSUMER.DELETE." + s + ".>", api + "CONSUMER.INFO." + s + ".>",
		"$JS.FC." + s + ".>", "$JS.FC.*.*." + s + ".>"}
}

// artifactsWrite writes objects (chunks and metadata), asks the bucket's
// leader whether a stored object's chunks are there (a put of content
// already stored), and purges the chunks of a put the stream refused.
func artifactsWrite() []string {
	s := "OBJ_" + events.BucketArtifacts
	return []string{api + "DIRECT.GET." + s + ".>", api + "STREAM.MSG.GET." + s, "$O." + events.BucketArtifacts + ".>", api + "STREAM.PURGE." + s}
}

// raoRead reads histories: the last entry of a run, or a replay through an
// ephemeral ordered pull consumer.
func raoRead() []string {
	s := events.StreamRAO
	return []string{api + "STREAM.MSG.GET." + s, api + "DIRECT.GET." + s + ".>",
		api + "CONSUMER.CREATE." + s + ".>", api + "CONSUMER.MSG.NEXT." + s + ".>",
		api + "CONSUMER.DELETE." + s + ".>", api + "CONSUMER.INFO." + s + ".>"}
}

// redeliveryCheck reads what a phase needs to tell, when tracing, that a
// redelivered event's outputs were already published (see the app's
// traceHandler): the outputs' last messages in the work stream, else the
// run's audit history, read only.
func redeliveryCheck() []string {
	return append([]string{api + "STREAM.MSG.GET." + events.StreamWork}, raoRead()...)
}

func runSubject(k events.Kind) string { return k.FilterSubject() }

// join concatenates subject lists, dropping repeats.
func join(parts ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		for _, s := range p {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// service is the identity of a phase or the recorder: bind the streams,
// read its own consumer, dead-letter, check run claims and run summaries,
// read the message id key (its outputs' Nats-Msg-Id is made with it; every
// service reads it at start), plus its own outputs and stores.
func service(name, doc string, own ...[]string) Identity {
	return Identity{
		Name: name, Doc: doc,
		Publish: join(streamInfo(), consume(name), []string{events.DeadLetterSubject(name)},
			// Live progress of its own handlings (core NATS, not stored).
			[]string{progress.SubjectPrefix + ".*." + name},
			kvRead(events.BucketRequests), kvRead(events.BucketRuns), kvRead(events.BucketKeys), join(own...)),
		Subscribe: []string{inbox(name)},
	}
}

// phase is the identity of a phase: a service that also checks a
// redelivered event's outputs (redeliveryCheck).
func phase(name, doc string, own ...[]string) Identity {
	return service(name, doc, append(own, redeliveryCheck())...)
}

// Identities returns every identity, services in pipeline order first.
func Identities() []Identity {
	pm := events.BucketPMState
	return []Identity{
		phase(events.ServiceLibrarian, "claims run ids, indexes repositories, publishes context",
			[]string{runSubject(events.KindContext), runSubject(events.KindFailed)},
			claimWrite(), kvRead(pm), kvRead(events.BucketPolicies), artifactsWrite()),
		phase(events.ServiceArchitect, "plans; publishes plan",
			[]string{runSubject(events.KindPlan), runSubject(events.KindFailed)},
			kvWrite(pm), kvRead(events.BucketPolicies), artifactsRead(), artifactsWrite()),
		phase(events.ServiceBuilder, "edits workspaces; publishes built; parks runs for approval (never decides one)",
			[]string{runSubject(events.KindBuilt), runSubject(events.KindFailed), runSubject(events.KindApprovalRequested),
				// Park deadlines: a schedule per park (the server fires it).
				events.TimerScheduleSubject("*", "*")},
			kvWrite(events.BucketParks),
			// A decision takes effect only when no earlier one on its
			// call is stored in the work stream: it reads them there.
			[]string{api + "STREAM.MSG.GET." + events.StreamWork},
			kvRead(pm), kvRead(events.BucketPolicies), artifactsRead(), artifactsWrite()),
		phase(events.ServiceCritic, "verifies; publishes the verdict or a retry",
			[]string{runSubject(events.KindPassed), runSubject(events.KindRetry), runSubject(events.KindFailed)},
			kvWrite(pm), kvRead(events.BucketPolicies), artifactsRead(), artifactsWrite()),
		service(events.ServiceRecorder, "writes the audit history and run summaries; ends no run",
			[]string{events.SubjectRAOAll, api + "STREAM.PURGE." + events.StreamRAO},
			raoRead(), kvWrite(events.BucketRuns), claimWrite()),
		provisioner(),
		{
			Name: CLI, Doc: "agents and the CLI: submit requests, decide parked calls, follow runs, read histories",
			Publish: join([]string{api + "INFO"}, agentStreamInfo(),
				[]string{
					api + "CONSUMER.INFO." + events.StreamWork + "." + events.ServiceLibrarian,
					runSubject(events.KindRequested), runSubject(events.KindApprovalDecided),
					// A publish acknowledged as a duplicate is checked against
					// the stored event (its subjects are readable anyway).
					api + "STREAM.MSG.GET." + events.StreamWork},
				// Run claims: submit tells its own consumed request from
				// another stored under the same message id.
				raoRead(), kvRead(events.BucketRuns), kvList(events.BucketRuns), kvRead(events.BucketRequests), artifactsRead()),
			Subscribe: []string{inbox(CLI), events.SubjectWorkAll, progress.SubjectPrefix + ".>"},
		},
		{Name: Admin, Doc: "the operator (people only): everything in the account", Publish: []string{">"}, Subscribe: []string{">"}},
	}
}

// provisioner creates and updates streams, buckets and the services'
// durable consumers, and stores the message id key. It deletes nothing and
// reads no event.
func provisioner() Identity {
	pub := []string{api + "INFO"}
	for _, s := range Streams() {
		pub = append(pub, api+"STREAM.INFO."+s, api+"STREAM.CREATE."+s, api+"STREAM.UPDATE."+s)
	}
	for _, svc := range events.Services() {
		w := events.StreamWork
		pub = append(pub, api+"CONSUMER.CREATE."+w+"."+svc, api+"CONSUMER.CREATE."+w+"."+svc+".>", api+"CONSUMER.INFO."+w+"."+svc)
	}
	// The services' message id key, created once (msgid.Ensure).
	pub = append(pub, kvWrite(events.BucketKeys)...)
	return Identity{Name: Provisioner, Doc: "creates and updates streams, buckets and durable consumers (a Job, or the operator)",
		Publish: pub, Subscribe: []string{inbox(Provisioner)}}
}

// agentStreamInfo lets agents bind every stream and bucket but the
// policies bucket and the key bucket: stream info with a subject filter
// lists a stream's subjects, and the policies bucket's keys name the runs
// an operator stored a policy for before their request is published (rao
// fork), which an agent could then claim first with a request of its own.
// The key bucket holds the services' message id key, which agents may not
// read at all (with it they could take a service output's message id
// first).
func agentStreamInfo() []string {
	var out []string
	for _, s := range Streams() {
		if s != "KV_"+events.BucketPolicies && s != "KV_"+events.BucketKeys {
			out = append(out, api+"STREAM.INFO."+s)
		}
	}
	return out
}

// Lookup returns the identity called name.
func Lookup(name string) (Identity, error) {
	for _, id := range Identities() {
		if id.Name == name {
			return id, nil
		}
	}
	return Identity{}, fmt.Errorf("natsauth: no identity %q", name)
}

// InboxPrefixFor is the inbox prefix of a client that authenticates as
// user: that identity's when user names one (the operator connecting as
// admin gets admin's, which no agent may read), fallback's otherwise (a
// token, or a user that is no identity; an override such as
// --inbox-prefix says otherwise).
func InboxPrefixFor(user, fallback string) string {
	if _, err := Lookup(user); err == nil && user != "" {
		return InboxPrefix(user)
	}
	return InboxPrefix(fallback)
}
