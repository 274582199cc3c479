// Package events is Codali's public wire contract: the CloudEvents envelope,
// the run event subjects, stream, consumer and bucket names, and the typed
// payload of each run event. It imports no NATS package, so any transport
// (and any language, through the documented JSON) can speak it.
package events

import "time"

// Stream, subject, consumer and bucket names. Every identifier that crosses a
// process boundary is declared here and nowhere else.
const (
	// StreamWork holds the run events; phase workers consume it.
	StreamWork = "CODALI"
	// SubjectWorkAll matches every run event.
	SubjectWorkAll = "codali.run.>"
	// SubjectRunPrefix starts every run event subject: codali.run.<run_id>.<event>.
	SubjectRunPrefix = "codali.run"

	// StreamRAO holds the append-only audit history written by the recorder.
	StreamRAO = "RAO"
	// SubjectRAOAll matches every audit history subject.
	SubjectRAOAll = "rao.>"
	// SubjectRAOPrefix starts a run's history subject: rao.<run_id>.
	SubjectRAOPrefix = "rao"

	// StreamDeadLetter keeps messages that could not be processed.
	StreamDeadLetter = "CODALI_DLQ"
	// SubjectDeadLetterAll matches every dead-letter subject.
	SubjectDeadLetterAll = "codali.dlq.>"
	// SubjectDeadLetterPrefix starts a dead-letter subject: codali.dlq.<service>.
	SubjectDeadLetterPrefix = "codali.dlq"

	// BucketArtifacts is the object store bucket for large artifacts
	// (context bundles, diffs) referenced from events.
	BucketArtifacts = "codali-artifacts"
	// BucketPMState is the key-value bucket holding each project's cognition
	// state; its revision is the pm_rev of audit events.
	BucketPMState = "codali-pm"
	// BucketRuns is the key-value bucket holding one summary per run, kept by
	// the recorder for `codali runs`.
	BucketRuns = "codali-runs"
	// BucketRequests is the key-value bucket holding, per run id, the
	// digest of the request the run was started with: the first accepted
	// `requested` claims the run id, and every later event of the run must
	// carry that request.
	BucketRequests = "codali-requests"
	// BucketPolicies is the key-value bucket holding the policy documents
	// operators stored for forked runs (`codali rao fork --policy`), keyed
	// by run id and digest. Only the operator identity may write it.
	BucketPolicies = "codali-policies"
	// BucketParks is the key-value bucket holding, per parked run, its
	// current park and the decisions taken on it (pkg/approval): the one
	// place where a decision and the deadline race, by compare-and-set.
	BucketParks = "codali-parks"
	// BucketKeys is the key-value bucket holding the services' message id
	// key (pkg/msgid): the secret that makes the Nats-Msg-Id of a service's
	// output unpredictable to agents. Agents may not read it.
	BucketKeys = "codali-keys"
	// StreamTimers is the stream of the builder's park deadlines: one
	// JetStream message schedule per park, which fires once, at the
	// deadline, on codali.timer.<run_id>.fire; CODALI sources that as
	// codali.run.<run_id>.approval_deadline.
	StreamTimers = "CODALI_TIMERS"
	// SubjectTimerAll matches every subject of StreamTimers.
	SubjectTimerAll = "codali.timer.>"
)

// ParkRetention is how long the codali-parks bucket keeps a park and the
// CODALI_TIMERS stream its deadline's schedule; MaxApprovalTimeout, the
// longest limits.approvalTimeoutMs, leaves a day of margin, so a park's
// deadline always fires before either is removed.
const (
	ParkRetention      = 30 * 24 * time.Hour
	MaxApprovalTimeout = ParkRetention - 24*time.Hour
)

// TimerScheduleSubject is where the deadline of a run's park is scheduled:
// codali.timer.<run_id>.schedule.<park>.
func TimerScheduleSubject(runID, park string) string {
	return "codali.timer." + runID + ".schedule." + park
}

// TimerFireSubject is where a run's park deadline fires:
// codali.timer.<run_id>.fire.
func TimerFireSubject(runID string) string { return "codali.timer." + runID + ".fire" }

// Service (and durable consumer) names.
const (
	ServiceLibrarian = "librarian"
	ServiceArchitect = "architect"
	ServiceBuilder   = "builder"
	ServiceCritic    = "critic"
	ServiceRecorder  = "recorder"
)

// Services lists every worker service in pipeline order.
func Services() []string {
	return []string{ServiceLibrarian, ServiceArchitect, ServiceBuilder, ServiceCritic, ServiceRecorder}
}

// NATS headers Codali sets on published messages.
const (
	// HeaderMsgID is the JetStream de-duplication header.
	HeaderMsgID = "Nats-Msg-Id"
	// HeaderDeadLetterReason says why a message was dead-lettered.
	HeaderDeadLetterReason = "Codali-Dlq-Reason"
	// HeaderDeadLetterSubject is the subject the message was first published to.
	HeaderDeadLetterSubject = "Codali-Dlq-Subject"
	// HeaderDeadLetterSequence is the message's sequence in its stream.
	HeaderDeadLetterSequence = "Codali-Dlq-Stream-Seq"
	// HeaderDeadLetterDeliveries is how many times it was delivered.
	HeaderDeadLetterDeliveries = "Codali-Dlq-Deliveries"
	// HeaderDeadLetterService is the service that gave up on it.
	HeaderDeadLetterService = "Codali-Dlq-Service"
)

// DeadLetterSubject is the subject a service dead-letters messages to.
func DeadLetterSubject(service string) string {
	return SubjectDeadLetterPrefix + "." + service
}

// RAOSubject is the subject of a run's audit history.
func RAOSubject(runID string) string {
	return SubjectRAOPrefix + "." + runID
}

// InputSubjects are the filter subjects of a service's durable consumer:
// the events it consumes. It returns nil for an unknown service.
func InputSubjects(service string) []string {
	switch service {
	case ServiceLibrarian:
		return []string{KindRequested.FilterSubject()}
	case ServiceArchitect:
		return []string{KindContext.FilterSubject(), KindRetry.FilterSubject()}
	case ServiceBuilder:
		// The builder parks runs (publishing approval_requested, which it
		// does not read back), resumes them on approval_decided and fails
		// them on approval_deadline.
		return []string{KindPlan.FilterSubject(), KindApprovalDecided.FilterSubject(), KindApprovalDeadline.FilterSubject()}
	case ServiceCritic:
		return []string{KindBuilt.FilterSubject()}
	case ServiceRecorder:
		return []string{SubjectWorkAll}
	}
	return nil
}
