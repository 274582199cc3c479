package afs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// requiredKeys are the payload keys each canonical file must have, besides
// the v0.3 metadata (snake_case after normalisation).
var requiredKeys = map[string][]string{
	PathState:         {"entries"},
	PathMetacognition: {"current_strategy", "progress_status", "spin_detection", "cognitive_load", "help_seeking", "self_corrections"},
	PathGoals:         {"root_partition", "goals", "focus_stack", "conflicts"},
	PathEmotions:      {"session"},
	PathEpistemic:     {"golden_facts", "working_facts", "assumptions", "unknowns", "contradictions"},
	PathTriggers:      {"triggers", "automatic"},
}

// Check runs the protocol's shape checks on a .context directory: every
// canonical JSON file present carries v0.3 metadata and its payload keys
// (snake_case or camelCase), state.json exists, state.md (when present)
// has the rendered bullet shape, and every history line passes
// ValidateLine. All problems are reported together, each wrapping
// ErrShape.
func Check(dir string) error {
	var errs []error
	bad := func(p string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrShape, p, fmt.Sprintf(format, args...)))
	}
	for _, p := range []string{PathState, PathMetacognition, PathGoals, PathEmotions, PathEpistemic, PathTriggers} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			if p == PathState {
				bad(p, "missing")
			}
			continue
		}
		if err != nil {
			bad(p, "%v", err)
			continue
		}
		checkCanonical(p, data, bad)
	}
	if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(PathStateMD))); err == nil {
		if _, err := ParseStateMD(string(data)); err != nil {
			errs = append(errs, err)
		}
	}
	names, err := Dir{Path: dir}.jsonNames(DirHistory, ".jsonl")
	if err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		if len(n) != len("2006-01-02.jsonl") || !isDate(strings.TrimSuffix(n, ".jsonl")) {
			bad(DirHistory+"/"+n, "history files are named YYYY-MM-DD.jsonl")
		}
		data, err := os.ReadFile(filepath.Join(dir, DirHistory, n))
		if err != nil {
			bad(DirHistory+"/"+n, "%v", err)
			continue
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if err := ValidateLine(line); err != nil {
				errs = append(errs, fmt.Errorf("%s/%s line %d: %w", DirHistory, n, i+1, err))
			}
		}
	}
	return errors.Join(errs...)
}

func checkCanonical(p string, data []byte, bad func(string, string, ...any)) {
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		bad(p, "not JSON: %v", err)
		return
	}
	obj, ok := snakeAll(raw, nil).(map[string]any)
	if !ok {
		bad(p, "not a JSON object")
		return
	}
	var m Meta
	norm, _ := json.Marshal(obj)
	_ = json.Unmarshal(norm, &m)
	for _, prob := range checkMeta(m) {
		bad(p, "%s", prob)
	}
	for _, k := range requiredKeys[p] {
		if _, ok := obj[k]; !ok {
			bad(p, "%s is missing", k)
		}
	}
}

func isDate(s string) bool {
	_, ok := ParseTime(s + "T00:00:00Z")
	return ok
}
