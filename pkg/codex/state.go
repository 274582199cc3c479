package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// State is what the pipeline gathers for Encode. Its JSON form (camelCase
// keys, see ReadState) is what `codali codex encode` reads. Empty strings,
// nil pointers and empty lists are left out of the payload (they decode as
// UNKNOWN); so is the literal value "UNKNOWN". Values are trimmed and inner
// whitespace becomes '-'.
type State struct {
	// ProjectHash is the project identifier, already hashed (proj#…).
	ProjectHash string `json:"projectHash,omitempty"`
	// Mode is strict, normal, flexible or exploratory (any case).
	Mode string `json:"mode,omitempty"`
	// Phase is the pipeline phase.
	Phase string `json:"phase,omitempty"`
	// Tasks is the task load.
	Tasks *StateTasks `json:"tasks,omitempty"`
	// KPIs are named indicators; names must be unique. They are emitted (and
	// decoded) in name order, because DATA tokens are sorted.
	KPIs []StateKPI `json:"kpis,omitempty"`
	// CogHealth is the cognitive health in [0,1].
	CogHealth *float64 `json:"cogHealth,omitempty"`
	// Maturity is the project maturity, e.g. iter2.
	Maturity string `json:"maturity,omitempty"`

	// Cycles is the number of cycles.
	Cycles *int `json:"cycles,omitempty"`
	// Actions are action kinds, e.g. edit, analysis.
	Actions []string `json:"actions,omitempty"`
	// Bursts describe activity bursts.
	Bursts []string `json:"bursts,omitempty"`
	// Droughts describe idle periods.
	Droughts []string `json:"droughts,omitempty"`
	// Hotspots are hashed identifiers (see HashID); raw paths are rejected.
	Hotspots []string `json:"hotspots,omitempty"`
	// Anomalies describe timeline anomalies.
	Anomalies []string `json:"anomalies,omitempty"`

	// Context is the CONTEXT block.
	Context StateContext `json:"context,omitzero"`
	// Insights are emitted in this (recency) order.
	Insights []StateInsight `json:"insights,omitempty"`
	// Decisions is the DECISIONS block.
	Decisions StateDecisions `json:"decisions,omitzero"`
	// Optional is the OPTIONAL block; Encode adds the checksum.
	Optional StateOptional `json:"optional,omitzero"`
}

// StateTasks is the task load: tasks=A, or tasks=A.active/T.total when Total
// is set.
type StateTasks struct {
	// Active is the number of active tasks (>= 0).
	Active int `json:"active"`
	// Total is the total number of tasks (>= 0), optional.
	Total *int `json:"total,omitempty"`
}

// StateKPI is one named indicator.
type StateKPI struct {
	// Name is [A-Za-z0-9_.-]+.
	Name string `json:"name"`
	// Value is the indicator's value.
	Value string `json:"value"`
}

// StateContext is the CONTEXT block input.
type StateContext struct {
	// Type is the project type, e.g. fullstack.
	Type string `json:"type,omitempty"`
	// Stack lists stack descriptors, emitted as stack=hash(a,b,…).
	Stack []string `json:"stack,omitempty"`
	// DevDNA is the developer profile, e.g. focus/iterative.
	DevDNA string `json:"devDNA,omitempty"`
	// Constraints are the run's constraints.
	Constraints []string `json:"constraints,omitempty"`
	// Success lists success criteria.
	Success []string `json:"success,omitempty"`
	// Reasoning is the reasoning style.
	Reasoning string `json:"reasoning,omitempty"`
	// Risk is the risk profile.
	Risk string `json:"risk,omitempty"`
}

// StateInsight is one insight.
type StateInsight struct {
	// Kind is pattern, trend, forecast or correlation (any case).
	Kind string `json:"kind"`
	// Label names the insight.
	Label string `json:"label"`
	// Weight is in [0,1], optional.
	Weight *float64 `json:"weight,omitempty"`
	// Conf is in [0,1], optional.
	Conf *float64 `json:"conf,omitempty"`
	// Signal is a signed value in [-1,1], optional.
	Signal *float64 `json:"signal,omitempty"`
}

// StateDecisions is the DECISIONS block input.
type StateDecisions struct {
	// ADRs are hashed ADR identifiers (adr#…); they decode in sorted order.
	ADRs []string `json:"adrs,omitempty"`
	// Drift lists drift signals.
	Drift []string `json:"drift,omitempty"`
	// Anomaly lists decision anomalies.
	Anomaly []string `json:"anomaly,omitempty"`
	// Integrity is GREEN, AMBER, RED (any case) or empty/UNKNOWN.
	Integrity Integrity `json:"integrity,omitempty"`
	// Adjust lists adjustments in priority order (kept in one token).
	Adjust []string `json:"adjust,omitempty"`
}

// StateOptional is the OPTIONAL block input.
type StateOptional struct {
	// Vendor names the vendor.
	Vendor string `json:"vendor,omitempty"`
	// Encoder names the encoder.
	Encoder string `json:"encoder,omitempty"`
	// Session is a hashed session fingerprint.
	Session string `json:"session,omitempty"`
	// Policy names the policy.
	Policy string `json:"policy,omitempty"`
	// Ext entries are emitted as ext.<key>=<value> and decode into
	// OptionalMetadata.Extensions under "ext.<key>".
	Ext map[string]string `json:"ext,omitempty"`
}

// ReadState reads one State from JSON. Unknown fields and trailing data are
// errors; every error wraps ErrInvalidState.
func ReadState(r io.Reader) (State, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("could not read state JSON: %w", errors.Join(ErrInvalidState, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return State{}, fmt.Errorf("could not read state JSON: %w: trailing data after the object", ErrInvalidState)
	}
	return s, nil
}
