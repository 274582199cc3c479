package events

// Retry phases: where a rejected attempt goes back to (spec §2: Phase 2 or
// Phase 3). Retries always travel on the retry subject to the architect,
// which re-plans (architect) or re-emits the same plan (builder).
const (
	RetryArchitect = "architect"
	RetryBuilder   = "builder"
)

// Review statuses; ReviewSkipped means no model review was made (no
// critic route, or the attempt had already failed).
const (
	ReviewPass     = "pass"
	ReviewConcerns = "concerns"
	ReviewFail     = "fail"
	ReviewSkipped  = "skipped"
)

// Alignment compares the change with the plan, without a model: which
// files were touched, which the plan targets (target_files and the steps'
// files) and declares as new (creates), which targets were not touched and
// which touched files the plan does not name.
type Alignment struct {
	// Touched are the changed files.
	Touched []string `json:"touched"`
	// Targets are the files the plan may change: target_files and the
	// steps' files (a name ending in "/" covers a directory, and glob
	// patterns are matched).
	Targets []string `json:"targets"`
	// Creates are the new files the plan declares.
	Creates []string `json:"creates,omitempty"`
	// UnmatchedTargets are target_files the change did not touch.
	UnmatchedTargets []string `json:"unmatched_targets,omitempty"`
	// Unrelated are touched files outside Targets and Creates; any makes
	// the attempt fail.
	Unrelated []string `json:"unrelated,omitempty"`
	// OK is false when the change strays outside the plan.
	OK bool `json:"ok"`
	// Reasons explain a failure or a concern.
	Reasons []string `json:"reasons,omitempty"`
}

// Review is the critic's model review of an attempt: the schema-checked
// answer of the critic's model, or why there was none.
type Review struct {
	// Status is pass, concerns, fail or skipped.
	Status string `json:"status"`
	// Reasons are the problems or concerns found.
	Reasons []string `json:"reasons,omitempty"`
	// Retryable says whether another attempt can fix a failure.
	Retryable bool `json:"retryable"`
	// RetryPhase is architect or builder.
	RetryPhase string `json:"retry_phase,omitempty"`
	// Notes are the model's free notes.
	Notes string `json:"review_notes,omitempty"`
	// Skipped says why no review was made.
	Skipped string `json:"skipped,omitempty"`
	// Provider and Model made the review.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}
