package critic

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// Align compares a change with its plan, without a model. A file the plan
// may change is named in target_files, in a step's files or in creates,
// exactly, as a directory (a name ending in "/") or by a glob pattern
// (path.Match). A touched file the plan does not name makes the alignment
// fail; target_files the change did not touch are reported as concerns.
func Align(plan events.Plan, change events.Change) events.Alignment {
	a := events.Alignment{
		Touched: []string{},
		Targets: uniq(append(append([]string(nil), plan.TargetFiles...), stepFiles(plan)...)),
		Creates: uniq(plan.Creates),
		OK:      true,
	}
	if a.Targets == nil {
		a.Targets = []string{}
	}
	for _, f := range change.Files {
		a.Touched = append(a.Touched, clean(f.Path))
	}
	a.Touched = uniq(a.Touched)
	for _, f := range change.Files {
		p := clean(f.Path)
		if covered(p, a.Targets) || covered(p, a.Creates) {
			continue
		}
		a.Unrelated = append(a.Unrelated, p)
		a.OK = false
		verb := "changed"
		switch f.Op {
		case "add":
			verb = "created"
		case "delete":
			verb = "deleted"
		}
		a.Reasons = append(a.Reasons, fmt.Sprintf("%s %s, which the plan neither targets nor declares as created", verb, p))
	}
	sort.Strings(a.Unrelated)
	for _, t := range uniq(plan.TargetFiles) {
		if !touches(t, a.Touched) {
			a.UnmatchedTargets = append(a.UnmatchedTargets, t)
		}
	}
	if len(a.UnmatchedTargets) > 0 {
		a.Reasons = append(a.Reasons, "plan targets left untouched: "+strings.Join(a.UnmatchedTargets, ", "))
	}
	return a
}

func stepFiles(p events.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, s.Files...)
	}
	return out
}

// clean normalises a repository-relative path.
func clean(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+strings.TrimSpace(p)), "/")
	return p
}

// uniq returns the cleaned, sorted, distinct names (a trailing "/" kept).
func uniq(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		c := clean(s)
		if strings.HasSuffix(strings.TrimSpace(s), "/") && c != "" {
			c += "/"
		}
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// covered reports whether file p is named by one of patterns.
func covered(p string, patterns []string) bool {
	for _, pat := range patterns {
		if matches(pat, p) {
			return true
		}
	}
	return false
}

// touches reports whether target names one of the touched files.
func touches(target string, touched []string) bool {
	for _, f := range touched {
		if matches(target, f) {
			return true
		}
	}
	return false
}

func matches(pattern, p string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/"); ok {
		return strings.HasPrefix(p, dir+"/")
	}
	if pattern == p {
		return true
	}
	ok, err := path.Match(pattern, p)
	return err == nil && ok
}
