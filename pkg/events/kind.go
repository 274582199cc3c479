package events

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is the name of a run event: the last token of its subject and the
// suffix of its CloudEvents type.
type Kind string

// The run events, in pipeline order.
const (
	KindRequested Kind = "requested"
	KindContext   Kind = "context"
	KindPlan      Kind = "plan"
	KindBuilt     Kind = "built"
	KindRetry     Kind = "retry"
	KindPassed    Kind = "passed"
	KindFailed    Kind = "failed"
	// KindApprovalRequested: the builder parked the run on tool calls the
	// policy requires approval for (approval.go).
	KindApprovalRequested Kind = "approval_requested"
	// KindApprovalDecided: a person or an agent approved, edited or
	// rejected one parked call.
	KindApprovalDecided Kind = "approval_decided"
	// KindApprovalDeadline: a park's deadline came. The builder schedules
	// it when it parks a run (a JetStream message schedule in the
	// CODALI_TIMERS stream, sourced into CODALI when it fires), so no
	// consumer holds a parked run while it waits.
	KindApprovalDeadline Kind = "approval_deadline"
)

// TypePrefix starts every Codali CloudEvents type.
const TypePrefix = "dev.codali.run."

// Kinds lists every run event kind in pipeline order.
func Kinds() []Kind {
	return []Kind{KindRequested, KindContext, KindPlan, KindBuilt, KindRetry, KindPassed, KindFailed,
		KindApprovalRequested, KindApprovalDecided, KindApprovalDeadline}
}

// ParseKind returns the Kind named s, or an error wrapping ErrUnknownKind.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownKind, s)
}

// AgentKinds are the kinds agents publish: a request and a decision on a
// parked call. Codali's services publish every other kind (and an
// approval_deadline comes from the builder's schedule).
func AgentKinds() []Kind { return []Kind{KindRequested, KindApprovalDecided} }

// FromAgents reports whether agents publish events of kind k (AgentKinds):
// what such an event carries besides its data, its trace context among
// it, is the agent's.
func (k Kind) FromAgents() bool { return slices.Contains(AgentKinds(), k) }

// Terminal reports whether the kind ends a run.
func (k Kind) Terminal() bool { return k == KindPassed || k == KindFailed }

// Type is the CloudEvents type of the kind, e.g. dev.codali.run.requested.
func (k Kind) Type() string { return TypePrefix + string(k) }

// KindFromType parses a CloudEvents type back into a Kind.
func KindFromType(t string) (Kind, error) {
	rest, ok := strings.CutPrefix(t, TypePrefix)
	if !ok {
		return "", fmt.Errorf("%w: type %q does not start with %q", ErrUnknownKind, t, TypePrefix)
	}
	return ParseKind(rest)
}

// Subject is the NATS subject of this kind of event for a run:
// codali.run.<run_id>.<kind>.
func (k Kind) Subject(runID string) string {
	return SubjectRunPrefix + "." + runID + "." + string(k)
}

// FilterSubject matches this kind of event for every run:
// codali.run.*.<kind>.
func (k Kind) FilterSubject() string {
	return SubjectRunPrefix + ".*." + string(k)
}

// RunSubjects matches every event of one run: codali.run.<run_id>.>.
func RunSubjects(runID string) string {
	return SubjectRunPrefix + "." + runID + ".>"
}

// ParseSubject splits codali.run.<run_id>.<kind> into its run id and kind.
// It returns an error wrapping ErrBadSubject when the subject has another
// shape, an invalid run id or an unknown kind.
func ParseSubject(subject string) (runID string, kind Kind, err error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 4 || parts[0]+"."+parts[1] != SubjectRunPrefix {
		return "", "", fmt.Errorf("%w: %q is not codali.run.<run_id>.<event>", ErrBadSubject, subject)
	}
	if err := ValidateRunID(parts[2]); err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrBadSubject, err)
	}
	k, err := ParseKind(parts[3])
	if err != nil {
		return parts[2], "", fmt.Errorf("%w: %w", ErrBadSubject, err)
	}
	return parts[2], k, nil
}

// MsgID is the deterministic message id <run_id>.<kind>.<attempt>, used both
// as the CloudEvents id and as the Nats-Msg-Id header, so a handler that is
// redelivered and publishes again is de-duplicated by the server.
func MsgID(runID string, kind Kind, attempt int) string {
	return fmt.Sprintf("%s.%s.%d", runID, kind, attempt)
}
