package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Keyed reports whether a run may hold several events of the kind in one
// attempt: their ids carry a key after the attempt,
// <run_id>.<event>.<attempt>.<key> (the park of an approval_requested, the
// call id of an approval_decided).
func (k Kind) Keyed() bool {
	return k == KindApprovalRequested || k == KindApprovalDecided || k == KindApprovalDeadline
}

// KeyedMsgID is the id of a keyed event: <run_id>.<event>.<attempt>.<key>.
func KeyedMsgID(runID string, kind Kind, attempt int, key string) string {
	return MsgID(runID, kind, attempt) + "." + key
}

// MaxKeyBytes bounds the key of a keyed event id.
const MaxKeyBytes = 64

// keyRune reports whether r may stand in a key.
func keyRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// ValidateKey checks a call or park id: 1-64 of [A-Za-z0-9_-].
func ValidateKey(key string) error {
	if key == "" || len(key) > MaxKeyBytes {
		return fmt.Errorf("%w: key %q must be 1-%d characters", ErrInvalidPayload, key, MaxKeyBytes)
	}
	for _, r := range key {
		if !keyRune(r) {
			return fmt.Errorf("%w: key %q may hold only letters, digits, '-' and '_'", ErrInvalidPayload, key)
		}
	}
	return nil
}

func checkKeyedID(id, prefix string) error {
	key, ok := strings.CutPrefix(id, prefix+".")
	if !ok {
		return fmt.Errorf("%w: id %q must be %s.<key>", ErrSubjectMismatch, id, prefix)
	}
	if err := ValidateKey(key); err != nil {
		return fmt.Errorf("%w: %w", ErrSubjectMismatch, err)
	}
	return nil
}

// KeyOf is the key of a keyed event's id ("" for other events).
func KeyOf(e Envelope) string {
	k, err := e.Kind()
	if err != nil || !k.Keyed() {
		return ""
	}
	key, _ := strings.CutPrefix(e.ID, MsgID(e.Subject, k, e.Attempt)+".")
	return key
}

// NewKeyed builds a keyed event (see Kind.Keyed).
func NewKeyed(runID string, kind Kind, attempt int, key, source string, now time.Time, data any) (Envelope, error) {
	if !kind.Keyed() {
		return Envelope{}, fmt.Errorf("%w: %s events carry no key", ErrInvalidPayload, kind)
	}
	if err := ValidateKey(key); err != nil {
		return Envelope{}, err
	}
	e, err := New(runID, kind, attempt, source, now, data)
	if err != nil {
		return Envelope{}, err
	}
	e.ID = KeyedMsgID(runID, kind, attempt, key)
	return e, nil
}

// Approval decisions.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// ApprovalCall is one tool call waiting for a decision.
type ApprovalCall struct {
	// ID names the call in its run: a<attempt>-s<step>-c<n>.
	ID string `json:"id"`
	// Step is the builder step whose answer asked for the call.
	Step int `json:"step"`
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Args are the call's arguments, bounded and redacted.
	Args json.RawMessage `json:"args"`
	// Targets are the paths or the command the call touches.
	Targets []string `json:"targets,omitempty"`
	// Warnings are the gate's warnings, "requires approval: …" among them.
	Warnings []string `json:"warnings"`
}

// ApprovalRequestedData is the data of codali.run.<id>.approval_requested:
// the builder parked the run on Calls. The event's key is Park; each call
// is decided on its own by an approval_decided event keyed by its id. The
// run's state at the park is in State (the conversation and tool record)
// and Change (the diff so far): the builder resumes from them, not from
// memory.
type ApprovalRequestedData struct {
	Run       Run          `json:"run"`
	BundleRef *ArtifactRef `json:"bundle_ref,omitempty"`
	// Park names this park of the run: a<attempt>-s<step>.
	Park  string         `json:"park"`
	Calls []ApprovalCall `json:"calls"`
	// Change is the diff so far (inline, or in the object store).
	Change Change `json:"change"`
	// State points at the builder's resume state in the object store.
	State ArtifactRef `json:"state"`
	// Reason is "budget_exhausted" when the run parked on its budget
	// (one call, tool "budget"); empty for tool calls that need approval.
	Reason string `json:"reason,omitempty"`
	// Deadline is when the run fails with approval_timeout if a call is
	// still undecided.
	Deadline time.Time `json:"deadline"`
	// Exchanges are the model exchanges of the handling that parked the
	// run, in call order.
	Exchanges []ExchangeRef `json:"exchanges,omitempty"`
}

// Validate checks the park and call ids.
func (d ApprovalRequestedData) Validate() error {
	if err := ValidateKey(d.Park); err != nil {
		return fmt.Errorf("park: %w", err)
	}
	if len(d.Calls) == 0 {
		return errors.New("approval_requested: no calls")
	}
	for _, c := range d.Calls {
		if err := ValidateKey(c.ID); err != nil {
			return fmt.Errorf("call: %w", err)
		}
	}
	return nil
}

// Call returns the parked call with the id.
func (d ApprovalRequestedData) Call(id string) (ApprovalCall, bool) {
	for _, c := range d.Calls {
		if c.ID == id {
			return c, true
		}
	}
	return ApprovalCall{}, false
}

// budgetCallSuffix ends the id of a budget park's call.
const budgetCallSuffix = "-budget"

// BudgetCallID names the pseudo call a run parks on when it reaches its
// budget before the model call of a step of an attempt.
func BudgetCallID(attempt, step int) string {
	return fmt.Sprintf("a%d-s%d%s", attempt, step, budgetCallSuffix)
}

// IsBudgetCall reports whether a call id is a budget park's (BudgetCallID).
func IsBudgetCall(id string) bool { return strings.HasSuffix(id, budgetCallSuffix) }

// ApprovalDecidedData is the data of codali.run.<id>.approval_decided,
// keyed by the call id: who decided what about one parked call, when. The
// event's attempt is the park's. The first decision of a call stands.
type ApprovalDecidedData struct {
	// Run may be empty: a decision belongs to its run by id.
	Run Run `json:"run"`
	// Call is the parked call's id (the event's key).
	Call string `json:"call"`
	// Decision is "approve" or "reject".
	Decision string `json:"decision"`
	// By says who decided; At when.
	By string    `json:"by"`
	At time.Time `json:"at"`
	// Note is the reason (required for a reject).
	Note string `json:"note,omitempty"`
	// EditedArgs, on an approve, replace the call's arguments; the
	// edited call passes the policy gate again.
	EditedArgs json.RawMessage `json:"edited_args,omitempty"`
	// Extend, on the approval of a budget park, raises the run's budget.
	Extend *Budget `json:"extend,omitempty"`
}

// DecodeDecision decodes and validates an approval_decided event's data
// (DecodeData), and checks that it names the call of the event's key
// (KeyOf): decisions on one call share its id. A decision without `at`
// was made when it was published: it takes the envelope's time, so no
// record of it says year 1.
func DecodeDecision(e Envelope) (ApprovalDecidedData, error) {
	var d ApprovalDecidedData
	if err := DecodeData(e, &d); err != nil {
		return d, err
	}
	if key := KeyOf(e); key != d.Call {
		return d, fmt.Errorf("%w: decision for call %q in event keyed %q", ErrInvalidPayload, d.Call, key)
	}
	if d.At.IsZero() {
		d.At = e.Time
	}
	return d, nil
}

// Validate checks the decision.
func (d ApprovalDecidedData) Validate() error {
	if err := ValidateKey(d.Call); err != nil {
		return fmt.Errorf("call: %w", err)
	}
	switch d.Decision {
	case DecisionApprove:
	case DecisionReject:
		if strings.TrimSpace(d.Note) == "" {
			return errors.New("approval_decided: a reject needs a note")
		}
		if len(d.EditedArgs) > 0 || d.Extend != nil {
			return errors.New("approval_decided: a reject carries no edited arguments or extension")
		}
	default:
		return fmt.Errorf("approval_decided: decision %q (want approve or reject)", d.Decision)
	}
	if strings.TrimSpace(d.By) == "" {
		return errors.New("approval_decided: by is required")
	}
	if d.Extend != nil {
		if err := d.Extend.Validate(); err != nil {
			return fmt.Errorf("approval_decided: extend: %w", err)
		}
		if *d.Extend == (Budget{}) {
			return errors.New("approval_decided: extend: give tokens or cost")
		}
	}
	return nil
}

// ToolApproval records on a tool execution the decision it ran under.
type ToolApproval struct {
	Call     string    `json:"call"`
	Decision string    `json:"decision"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
	Note     string    `json:"note,omitempty"`
	// Edited is set when the call ran with the decision's edited arguments.
	Edited bool `json:"edited,omitempty"`
}

// ApprovalDeadlineData is the data of approval_deadline (keyed by the
// park): the park whose deadline came.
type ApprovalDeadlineData struct {
	Run Run `json:"run"`
	// Park is the park's key; Request the id of its approval_requested.
	Park     string    `json:"park"`
	Request  string    `json:"request"`
	Deadline time.Time `json:"deadline"`
}

// Validate checks the park and the request id.
func (d ApprovalDeadlineData) Validate() error {
	if err := ValidateKey(d.Park); err != nil {
		return fmt.Errorf("approval_deadline: park: %w", err)
	}
	if d.Request == "" {
		return errors.New("approval_deadline: request is required")
	}
	return nil
}
