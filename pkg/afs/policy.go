package afs

import (
	"fmt"
	"path"
	"strings"
)

// Root is the AFS directory at the root of a repository.
const Root = ".context"

// Access policies of the file policy table (protocol §8).
const (
	PolicyReadOnly     = "read_only"
	PolicySystemAppend = "system_append"
	PolicyWritable     = "writable"
	PolicyExecutable   = "executable"
)

// Rule is one row of the file policy table.
type Rule struct {
	// Dir is the directory under .context/, with a trailing slash.
	Dir    string `json:"dir"`
	Role   string `json:"role"`
	Policy string `json:"policy"`
}

// Table returns the file policy table of protocol v0.3 §8.
func Table() []Rule {
	return []Rule{
		{Dir: "memory/", Role: "Long-term docs, hazards", Policy: PolicyReadOnly},
		{Dir: "knowledge/", Role: "Reference", Policy: PolicyReadOnly},
		{Dir: "history/", Role: "Append-only log", Policy: PolicySystemAppend},
		{Dir: "scratchpad/", Role: "Working memory", Policy: PolicyWritable},
		{Dir: "tools/", Role: "Procedural memory", Policy: PolicyExecutable},
		{Dir: "hivemind/", Role: "Cross-session learnings", Policy: PolicyReadOnly},
		{Dir: "notes/", Role: "Human notes", Policy: PolicyReadOnly},
	}
}

// Classify returns the table row governing a repository-relative,
// slash-separated path, and false when the path is outside .context/ or
// in no listed directory.
func Classify(p string) (Rule, bool) {
	c := path.Clean(strings.TrimPrefix(p, "./"))
	rest, ok := strings.CutPrefix(c, Root+"/")
	if !ok {
		return Rule{}, false
	}
	for _, r := range Table() {
		if strings.HasPrefix(rest+"/", r.Dir) {
			return r, true
		}
	}
	return Rule{}, false
}

// Reason is the table's explanation of why the model's tools may not
// write p, or "" when they may.
func (r Rule) Reason(p string) string {
	switch r.Policy {
	case PolicyReadOnly:
		return fmt.Sprintf("%s is in %s%s (%s): read_only to the model's tools; only the system updates it (cognitive protocol v0.3 §8)", p, Root+"/", r.Dir, r.Role)
	case PolicySystemAppend:
		return fmt.Sprintf("%s is in %s%s (%s): system_append; only the system appends to it (cognitive protocol v0.3 §8)", p, Root+"/", r.Dir, r.Role)
	case PolicyExecutable:
		return fmt.Sprintf("%s is in %s%s (%s): executable only through the gate, never written by the model's tools (cognitive protocol v0.3 §8)", p, Root+"/", r.Dir, r.Role)
	}
	return ""
}

// CheckModelWrite returns an error wrapping ErrProtected, carrying the
// table's reason, when the model's tools may not write (create, change or
// delete) the path; nil when they may (scratchpad/ and paths outside the
// table).
func CheckModelWrite(p string) error {
	r, ok := Classify(p)
	if !ok {
		return nil
	}
	if reason := r.Reason(p); reason != "" {
		return fmt.Errorf("%w: %s", ErrProtected, reason)
	}
	return nil
}
