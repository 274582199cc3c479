package events

import (
	"errors"
	"fmt"
	"strings"
)

// MaxRequestBytes bounds the request text of a run.
const MaxRequestBytes = 64 << 10

// RepoRef says where the repository to change lives: a path on a filesystem
// every worker can read, or a git URL with an optional ref.
type RepoRef struct {
	// Path is an absolute directory path.
	Path string `json:"path,omitempty"`
	// URL is a git remote (https://, ssh://, git@, file://).
	URL string `json:"url,omitempty"`
	// Ref is the branch, tag or commit to check out with URL.
	Ref string `json:"ref,omitempty"`
}

// Validate requires exactly one of Path or URL.
func (r RepoRef) Validate() error {
	switch {
	case r.Path == "" && r.URL == "":
		return errors.New("repo: one of path or url is required")
	case r.Path != "" && r.URL != "":
		return errors.New("repo: give either path or url, not both")
	case r.Path != "" && !strings.HasPrefix(r.Path, "/"):
		return fmt.Errorf("repo: path %q must be absolute", r.Path)
	case r.Ref != "" && r.URL == "":
		return errors.New("repo: ref needs url")
	case strings.HasPrefix(r.Ref, "-"):
		return fmt.Errorf("repo: ref %q may not start with '-'", r.Ref)
	case strings.HasPrefix(r.URL, "-"):
		return fmt.Errorf("repo: url %q may not start with '-'", r.URL)
	}
	return nil
}

// String is the path, or url@ref.
func (r RepoRef) String() string {
	if r.Path != "" {
		return r.Path
	}
	if r.Ref != "" {
		return r.URL + "@" + r.Ref
	}
	return r.URL
}

// RunOptions are the per-run knobs an agent may set.
type RunOptions struct {
	// MaxRetries overrides limits.maxRetries: how many critic→architect
	// retries a run gets before it fails (0 = none). Absent means the
	// configured default.
	MaxRetries *int `json:"max_retries,omitempty"`
	// Project names the project whose state (goal tree, memory) the run
	// reads and updates. Defaults to a hash of the repo reference.
	Project string `json:"project,omitempty"`
	// Labels are free-form key/values carried to the terminal event.
	Labels map[string]string `json:"labels,omitempty"`
	// AgentID names the agent whose Docdex profile and preferences the run
	// reads and writes (x-docdex-agent-id). Default: docdex.agentId.
	AgentID string `json:"agent_id,omitempty"`
	// WriteContext adds the run's Cognitive Protocol scratchpad and
	// history files (.context/scratchpad, .context/history) to the change,
	// for repositories that keep .context/ under version control.
	WriteContext bool `json:"write_context,omitempty"`
	// Fast asks for the fast path (spec §2): the architect makes a
	// one-step plan with the repository's default checks without asking
	// its model. See the architect's fast-path rule for when it applies
	// without being asked.
	Fast bool `json:"fast,omitempty"`
	// Budget overrides limits.maxRunTokens and limits.maxRunCost for this
	// run; reaching it parks the run with budget_exhausted.
	Budget *Budget `json:"budget,omitempty"`
	// Fork, set by `codali rao fork`, links the run to the run and
	// recorded event it was forked from.
	Fork *ForkOf `json:"fork,omitempty"`
	// Policy, set by `codali rao fork --policy`, names the policy document
	// an operator stored for this run in the codali-policies bucket: every
	// phase that evaluates policy judges the run under it (and refuses the
	// run when it is missing, altered or invalid) instead of the
	// configured one.
	Policy *PolicyRef `json:"policy,omitempty"`
}

// PolicyRef names a stored policy document by its digest,
// "sha256:<64 hex digits>" of the document's bytes.
type PolicyRef struct {
	Digest string `json:"digest"`
}

// Validate checks the digest's form.
func (p PolicyRef) Validate() error {
	hex, ok := strings.CutPrefix(p.Digest, "sha256:")
	if !ok || len(hex) != 64 || strings.Trim(hex, "0123456789abcdef") != "" {
		return fmt.Errorf("policy: digest %q (want sha256:<64 lowercase hex digits>)", p.Digest)
	}
	return nil
}

// ForkOf names where a forked run starts: a run and one event of its
// audit history, and the plan recorded there (the architect then builds
// it instead of planning again).
type ForkOf struct {
	Run   string `json:"run"`
	Event string `json:"event"`
	Plan  *Plan  `json:"plan,omitempty"`
}

// Requested is the data of codali.run.<id>.requested.
type Requested struct {
	// Request is what the agent asks for, in natural language.
	Request string `json:"request"`
	// Repo is the repository to change.
	Repo RepoRef `json:"repo"`
	// Options are optional per-run settings.
	Options RunOptions `json:"options,omitempty"`
}

// Validate checks the request text and the repo reference.
func (r Requested) Validate() error {
	var errs []error
	if strings.TrimSpace(r.Request) == "" {
		errs = append(errs, errors.New("request: must not be empty"))
	}
	if len(r.Request) > MaxRequestBytes {
		errs = append(errs, fmt.Errorf("request: %d bytes (max %d)", len(r.Request), MaxRequestBytes))
	}
	if err := r.Repo.Validate(); err != nil {
		errs = append(errs, err)
	}
	if b := r.Options.Budget; b != nil {
		if err := b.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("options.%w", err))
		}
	}
	if f := r.Options.Fork; f != nil {
		if err := ValidateRunID(f.Run); err != nil || f.Event == "" {
			errs = append(errs, fmt.Errorf("options.fork: run %q and event %q are required", f.Run, f.Event))
		}
	}
	if p := r.Options.Policy; p != nil {
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("options.%w", err))
		}
	}
	if m := r.Options.MaxRetries; m != nil && (*m < 0 || *m > 20) {
		errs = append(errs, fmt.Errorf("options.max_retries: %d (allowed 0..20)", *m))
	}
	return errors.Join(errs...)
}

// Run is the part of a run every event carries, so each phase has what it
// needs without reading earlier events.
type Run struct {
	// Request is the original request.
	Request Requested `json:"request"`
	// Project is the resolved project id.
	Project string `json:"project"`
	// MaxRetries is the resolved retry limit.
	MaxRetries int `json:"max_retries"`
	// Failures lists the reasons earlier attempts failed, oldest first.
	Failures []string `json:"failures,omitempty"`
	// Codex is the run's current RL4-CODEX payload.
	Codex string `json:"codex,omitempty"`
	// Commit is the commit a URL repository was pinned to by the librarian:
	// later phases check out exactly this commit (see Repo), even if the
	// request's ref moves during the run. The request itself is unchanged,
	// so every event still carries the run's request.
	Commit string `json:"commit,omitempty"`
	// PMRev is the revision of the project state (in the codali-pm bucket)
	// after the last phase that changed it; audit events carry it as pm_rev.
	PMRev uint64 `json:"pm_rev,omitempty"`
	// Usage is the model usage of the run so far, per phase, provider and
	// model, over every attempt; the terminal event's total sums it.
	Usage []ModelUsage `json:"usage,omitempty"`
	// Spend is the model use so far, per phase.
	Spend SpendByPhase `json:"spend,omitempty"`
	// BudgetExtra is what `codali budget extend` added to the run's budget.
	BudgetExtra *Budget `json:"budget_extra,omitempty"`
}

// Repo is the repository the phases work on: the request's, with a URL
// repository's ref replaced by the pinned commit.
func (r Run) Repo() RepoRef {
	repo := r.Request.Repo
	if r.Commit != "" && repo.URL != "" {
		repo.Ref = r.Commit
	}
	return repo
}
