package afs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/codali-dev/codali/pkg/policy"
)

// Hazard is one playbook of memory/fears.json: a trigger and its
// mitigation. Tools and Paths narrow the trigger: when either is set, a
// call matches only if its tool is listed (when Tools is set) and one of
// its paths matches a glob (when Paths is set). A playbook with neither
// matches when its trigger text occurs, case-insensitively, in the call's
// description (tool, paths and command line).
type Hazard struct {
	ID         string   `json:"id"`
	Trigger    string   `json:"trigger"`
	Mitigation string   `json:"mitigation"`
	Tools      []string `json:"tools,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Severity   string   `json:"severity,omitempty"`
	UpdatedAt  string   `json:"updated_at,omitempty"`
}

// HazardFile is memory/fears.json.
type HazardFile struct {
	Meta
	Playbooks []Hazard `json:"playbooks"`
}

// Call is the view of a tool call that hazards are matched against.
type Call struct {
	Tool    string   `json:"tool"`
	Paths   []string `json:"paths,omitempty"`
	Command []string `json:"command,omitempty"`
}

// HazardMatch is a matched playbook, carried into the snapshot.
type HazardMatch struct {
	ID         string `json:"id"`
	Trigger    string `json:"trigger"`
	Mitigation string `json:"mitigation"`
	Severity   string `json:"severity,omitempty"`
}

// Describe is the text plain-trigger playbooks are matched against.
func (c Call) Describe() string {
	parts := append([]string{c.Tool}, c.Paths...)
	if len(c.Command) > 0 {
		parts = append(parts, strings.Join(c.Command, " "))
	}
	return strings.Join(parts, " ")
}

// Matches reports whether the playbook applies to the call. A malformed
// path glob never matches.
func (h Hazard) Matches(c Call) bool {
	if len(h.Tools) == 0 && len(h.Paths) == 0 {
		t := strings.TrimSpace(strings.ToLower(h.Trigger))
		return t != "" && strings.Contains(strings.ToLower(c.Describe()), t)
	}
	if len(h.Tools) > 0 && !contains(h.Tools, c.Tool) {
		return false
	}
	if len(h.Paths) == 0 {
		return true
	}
	for _, g := range h.Paths {
		for _, p := range c.Paths {
			if ok, err := policy.MatchGlob(g, p); err == nil && ok {
				return true
			}
		}
	}
	return false
}

// MatchHazards returns the playbooks that apply to the call, by id.
func MatchHazards(hs []Hazard, c Call) []HazardMatch {
	var out []HazardMatch
	for _, h := range hs {
		if h.Matches(c) {
			out = append(out, HazardMatch{ID: h.ID, Trigger: h.Trigger, Mitigation: h.Mitigation, Severity: h.Severity})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ParseHazards reads memory/fears.json. It accepts a v0.3 file whose
// playbooks are under "playbooks", "hazards" or "fears" (an array, or an
// object keyed by id), a bare array, and snake_case or camelCase keys. A
// playbook without id gets "hazard-<n>"; one without trigger or mitigation
// is an error.
func ParseHazards(data []byte) ([]Hazard, error) {
	data = bytes.TrimSpace(data)
	var list json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		list = data
	} else {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%w: fears.json: %w", ErrRead, err)
		}
		for _, k := range []string{"playbooks", "hazards", "fears"} {
			if raw, ok := top[k]; ok {
				list = raw
				break
			}
		}
	}
	list = bytes.TrimSpace(list)
	var hs []Hazard
	switch {
	case len(list) == 0 || string(list) == "null":
		return nil, nil
	case list[0] == '{':
		var byID map[string]json.RawMessage
		if err := json.Unmarshal(list, &byID); err != nil {
			return nil, fmt.Errorf("%w: fears.json: %w", ErrRead, err)
		}
		ids := make([]string, 0, len(byID))
		for id := range byID {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			var h Hazard
			if err := decodeLoose(byID[id], &h, nil); err != nil {
				return nil, fmt.Errorf("%w: fears.json %s: %w", ErrRead, id, err)
			}
			if h.ID == "" {
				h.ID = id
			}
			hs = append(hs, h)
		}
	default:
		if err := decodeLoose(list, &hs, nil); err != nil {
			return nil, fmt.Errorf("%w: fears.json: %w", ErrRead, err)
		}
	}
	for i := range hs {
		if hs[i].ID == "" {
			hs[i].ID = fmt.Sprintf("hazard-%d", i+1)
		}
		if strings.TrimSpace(hs[i].Trigger) == "" || strings.TrimSpace(hs[i].Mitigation) == "" {
			return nil, fmt.Errorf("%w: fears.json playbook %s needs a trigger and a mitigation", ErrRead, hs[i].ID)
		}
	}
	return hs, nil
}
