package architect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
)

// Acts of the architect's Cortex act catalog. Each one changes the plan
// the builder and critic receive; nothing else is an act.
const (
	ActFlagRisk      = "flag_risk"
	ActAddCheck      = "add_check"
	ActAddStep       = "add_step"
	ActDeclareCreate = "declare_create"
)

// Bounds on what acts may add.
const (
	// maxActs is the most acts one answer may carry; later ones are
	// diagnostics.
	maxActs = 16
	// maxActText bounds a risk, a step description or a check name.
	maxActText = 1 << 10
	// maxActArgs bounds a check's argv length and a step's file list.
	maxActArgs = 32
	// maxActArg bounds one argv element or path.
	maxActArg = 1 << 10
)

// errAct is what an act's arguments fail with.
var errAct = errors.New("invalid act")

// actDescriptor is one act of the catalog: its name, its arguments as the
// model sees them, what it does, and how it is carried out.
type actDescriptor struct {
	name, args, effect string
	apply              func(args json.RawMessage, plan *events.Plan, gate func(policy.ToolCall) policy.Decision) error
}

// acts is the architect's act catalog: what the model is shown is exactly
// what the architect carries out.
var acts = []actDescriptor{
	{ActFlagRisk, `{"risk": string}`, "add a risk to the plan (the builder sees it)", flagRisk},
	{ActAddCheck, `{"name": string, "command": [string]}`, "add a verification command the critic runs (no shell; it must pass the policy gate without approval)", addCheck},
	{ActAddStep, `{"description": string, "files": [string]}`, "append a step to the plan (files: repository-relative paths it touches)", addStep},
	{ActDeclareCreate, `{"path": string}`, "declare a new file the change may create (repository-relative)", declareCreate},
}

// actCatalog renders the catalog for the input IR.
func actCatalog() string {
	var b strings.Builder
	for _, a := range acts {
		fmt.Fprintf(&b, "- %s %s: %s.\n", a.name, a.args, a.effect)
	}
	return b.String()
}

// applyActs carries out the model's acts on the plan, in order. An act
// outside the catalog, with invalid arguments or past maxActs changes
// nothing and is a diagnostic.
func applyActs(out cognition.OutputIR, plan *events.Plan, rep *events.CortexReport, gate func(policy.ToolCall) policy.Decision) {
	for i, a := range out.Acts {
		if i >= maxActs {
			rep.Diagnostics = append(rep.Diagnostics, fmt.Sprintf("acts[%d..]: more than %d acts, the rest ignored", i, maxActs))
			return
		}
		k := slices.IndexFunc(acts, func(d actDescriptor) bool { return d.name == a.Act })
		if k < 0 {
			rep.Diagnostics = append(rep.Diagnostics, fmt.Sprintf("acts[%d] %s: not in the act catalog", i, clipAct(a.Act)))
			continue
		}
		if err := acts[k].apply(a.Args, plan, gate); err != nil {
			rep.Diagnostics = append(rep.Diagnostics, fmt.Sprintf("acts[%d] %s: %v", i, a.Act, err))
			continue
		}
		rep.Acts = append(rep.Acts, a.Act)
	}
}

// decodeArgs decodes an act's arguments strictly: an object with no
// unknown field.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: arguments: %v", errAct, err)
	}
	return nil
}

func text(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", fmt.Errorf("%w: needs a non-empty %q", errAct, field)
	case len(s) > maxActText:
		return "", fmt.Errorf("%w: %q is longer than %d bytes", errAct, field, maxActText)
	}
	return s, nil
}

// repoPath checks a repository-relative path an act names: relative,
// clean, inside the repository and outside git's metadata.
func repoPath(p string) (string, error) {
	c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	switch {
	case p == "" || len(p) > maxActArg:
		return "", fmt.Errorf("%w: a path must be 1 to %d bytes", errAct, maxActArg)
	case strings.HasPrefix(c, "/") || c == "." || c == ".." || strings.HasPrefix(c, "../"):
		return "", fmt.Errorf("%w: path %q is not inside the repository", errAct, p)
	case strings.EqualFold(c, ".git") || strings.HasPrefix(strings.ToLower(c), ".git/"):
		return "", fmt.Errorf("%w: path %q is git metadata", errAct, p)
	}
	return c, nil
}

func flagRisk(raw json.RawMessage, plan *events.Plan, _ func(policy.ToolCall) policy.Decision) error {
	var a struct {
		Risk string `json:"risk"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	r, err := text("risk", a.Risk)
	if err != nil {
		return err
	}
	if !slices.Contains(plan.Risks, r) {
		plan.Risks = append(plan.Risks, r)
	}
	return nil
}

func addCheck(raw json.RawMessage, plan *events.Plan, gate func(policy.ToolCall) policy.Decision) error {
	var a struct {
		Name    string   `json:"name"`
		Command []string `json:"command"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	name, err := text("name", a.Name)
	if err != nil {
		return err
	}
	if len(a.Command) == 0 || a.Command[0] == "" || len(a.Command) > maxActArgs {
		return fmt.Errorf("%w: \"command\" must be 1 to %d arguments, the first non-empty", errAct, maxActArgs)
	}
	for _, arg := range a.Command {
		if len(arg) > maxActArg {
			return fmt.Errorf("%w: a command argument is longer than %d bytes", errAct, maxActArg)
		}
	}
	if slices.ContainsFunc(plan.Verify, func(v events.VerifyCommand) bool { return slices.Equal(v.Command, a.Command) }) {
		return fmt.Errorf("%w: the plan already runs this command", errAct)
	}
	if gate == nil {
		return fmt.Errorf("%w: no policy gate to check the command with", errAct)
	}
	d := gate(policy.ToolCall{Tool: policy.ToolRunCommand, Command: a.Command})
	if d.Blocked || d.RequiresApproval() {
		return fmt.Errorf("%w: the policy gate does not let the command run: %s", errAct, strings.Join(append(d.Reasons, d.Warnings...), "; "))
	}
	plan.Verify = append(plan.Verify, events.VerifyCommand{Name: name, Command: a.Command})
	return nil
}

func addStep(raw json.RawMessage, plan *events.Plan, _ func(policy.ToolCall) policy.Decision) error {
	var a struct {
		Description string   `json:"description"`
		Files       []string `json:"files"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	desc, err := text("description", a.Description)
	if err != nil {
		return err
	}
	if len(a.Files) > maxActArgs {
		return fmt.Errorf("%w: more than %d files", errAct, maxActArgs)
	}
	var files []string
	for _, f := range a.Files {
		p, err := repoPath(f)
		if err != nil {
			return err
		}
		files = append(files, p)
	}
	plan.Steps = append(plan.Steps, events.PlanStep{ID: fmt.Sprintf("cortex-%d", len(plan.Steps)+1), Description: desc, Files: files})
	return nil
}

func declareCreate(raw json.RawMessage, plan *events.Plan, _ func(policy.ToolCall) policy.Decision) error {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	p, err := repoPath(a.Path)
	if err != nil {
		return err
	}
	if !slices.Contains(plan.Creates, p) {
		plan.Creates = append(plan.Creates, p)
	}
	return nil
}

// clipAct bounds an unknown act's name in a diagnostic.
func clipAct(name string) string {
	if len(name) > 64 {
		return name[:64] + "…"
	}
	return name
}
