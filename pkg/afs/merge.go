package afs

import (
	"encoding/json"
	"errors"
	"os"
)

// Conflict is one key two sources disagree about, with the side kept.
type Conflict struct {
	File    string `json:"file"`
	Key     string `json:"key"`
	Kept    string `json:"kept"`
	Dropped string `json:"dropped"`
	// Rule is "scope" (a higher scope wins) or "newest" (the newest
	// updated_at wins).
	Rule string `json:"rule"`
}

// Rules of mergeKeyed.
const (
	ruleScope  = "scope"
	ruleNewest = "newest"
)

// mergeKeyed merges layers of items deduplicated by key. With the scope
// rule, layers are in priority order and the first layer holding a key
// wins; with the newest rule, the item with the newest updated_at wins
// (a later layer on a tie). Differing values are reported as conflicts.
// Items keep the order of their key's first appearance.
func mergeKeyed[T any](file, rule string, layers [][]T, key func(T) string, updated func(T) string) ([]T, []Conflict) {
	var order []string
	chosen := map[string]T{}
	var conflicts []Conflict
	for _, layer := range layers {
		for _, it := range layer {
			k := key(it)
			old, ok := chosen[k]
			if !ok {
				order = append(order, k)
				chosen[k] = it
				continue
			}
			a, b := valueOf(old), valueOf(it)
			keepNew := rule == ruleNewest && !newer(updated(old), updated(it))
			if a == b {
				if keepNew {
					chosen[k] = it
				}
				continue
			}
			if keepNew {
				chosen[k] = it
				conflicts = append(conflicts, Conflict{File: file, Key: k, Kept: b, Dropped: a, Rule: rule})
			} else {
				conflicts = append(conflicts, Conflict{File: file, Key: k, Kept: a, Dropped: b, Rule: rule})
			}
		}
	}
	out := make([]T, 0, len(order))
	for _, k := range order {
		out = append(out, chosen[k])
	}
	return out, conflicts
}

// newer reports whether timestamp a is strictly newer than b; an
// unparsable timestamp is oldest.
func newer(a, b string) bool {
	ta, oka := ParseTime(a)
	tb, okb := ParseTime(b)
	switch {
	case !oka:
		return false
	case !okb:
		return true
	}
	return ta.After(tb)
}

// valueOf is the comparison form of an item (its JSON without updated_at
// and access times).
func valueOf(v any) string {
	b, _ := json.Marshal(v)
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	for _, k := range []string{"updated_at", "last_accessed", "timestamp"} {
		delete(m, k)
	}
	c, _ := json.Marshal(m)
	return string(c)
}

func stateKey(e StateEntry) string      { return e.Section + "/" + e.Key }
func stateUpdated(e StateEntry) string  { return e.UpdatedAt }
func epiKey(e EpistemicItem) string     { return e.ID }
func epiUpdated(e EpistemicItem) string { return e.UpdatedAt }
func emotionKey(e Emotion) string       { return e.Category + "/" + e.ID }
func emotionUpdated(e Emotion) string   { return firstNonEmpty(e.UpdatedAt, e.LastAccessed, e.Timestamp) }
func hazardKey(h Hazard) string         { return h.ID }
func hazardUpdated(h Hazard) string     { return h.UpdatedAt }
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// mergeFiles merges the item-level files of layers with one rule; the
// file-level ones (metacognition, goals, hivemind files) come from the
// first layer that has them under the scope rule and the last under the
// newest rule. Emotion sessions come from the first layer with emotions.
func mergeFiles(rule string, layers ...Files) (Files, []Conflict) {
	var out Files
	var conflicts []Conflict
	var states [][]StateEntry
	var epis [][5][]EpistemicItem
	var emos [][]Emotion
	var hazards [][]Hazard
	var trigs [][]AnalysisTrigger
	ordered := layers
	if rule == ruleNewest {
		// File-level picks: the last layer wins, so walk backwards.
		ordered = make([]Files, len(layers))
		for i := range layers {
			ordered[i] = layers[len(layers)-1-i]
		}
	}
	for _, l := range ordered {
		if out.Metacognition == nil && l.Metacognition != nil {
			out.Metacognition = l.Metacognition
		}
		if out.Goals == nil && l.Goals != nil {
			out.Goals = l.Goals
		}
		if out.Emotions == nil && l.Emotions != nil {
			e := l.Emotions.clone()
			out.Emotions = &e
		}
		if out.State == nil && l.State != nil {
			s := *l.State
			out.State = &s
		}
		if out.Epistemic == nil && l.Epistemic != nil {
			e := *l.Epistemic
			out.Epistemic = &e
		}
		if out.Hazards == nil && l.Hazards != nil {
			h := *l.Hazards
			out.Hazards = &h
		}
		if out.Triggers == nil && l.Triggers != nil {
			t := *l.Triggers
			out.Triggers = &t
		}
		for name, raw := range l.Hivemind {
			if out.Hivemind == nil {
				out.Hivemind = map[string]json.RawMessage{}
			}
			if _, ok := out.Hivemind[name]; !ok {
				out.Hivemind[name] = raw
			}
		}
	}
	for _, l := range layers {
		if l.State != nil {
			states = append(states, l.State.Entries)
		}
		if e := l.Epistemic; e != nil {
			epis = append(epis, [5][]EpistemicItem{e.GoldenFacts, e.WorkingFacts, e.Assumptions, e.Unknowns, e.Contradictions})
		}
		if l.Emotions != nil {
			emos = append(emos, l.Emotions.sortedEmotions())
		}
		if l.Hazards != nil {
			hazards = append(hazards, l.Hazards.Playbooks)
		}
		if l.Triggers != nil {
			trigs = append(trigs, l.Triggers.Triggers)
		}
	}
	if out.State != nil {
		var c []Conflict
		out.State.Entries, c = mergeKeyed(PathState, rule, states, stateKey, stateUpdated)
		conflicts = append(conflicts, c...)
	}
	if out.Epistemic != nil {
		lists := []*[]EpistemicItem{&out.Epistemic.GoldenFacts, &out.Epistemic.WorkingFacts, &out.Epistemic.Assumptions, &out.Epistemic.Unknowns, &out.Epistemic.Contradictions}
		for i, dst := range lists {
			var ls [][]EpistemicItem
			for _, e := range epis {
				ls = append(ls, e[i])
			}
			var c []Conflict
			*dst, c = mergeKeyed(PathEpistemic, rule, ls, epiKey, epiUpdated)
			conflicts = append(conflicts, c...)
		}
	}
	if out.Emotions != nil {
		all, c := mergeKeyed(PathEmotions, rule, emos, emotionKey, emotionUpdated)
		conflicts = append(conflicts, c...)
		for cat := range out.Emotions.Stores {
			out.Emotions.Stores[cat] = map[string]Emotion{}
		}
		for _, em := range all {
			if out.Emotions.Stores[em.Category] == nil {
				out.Emotions.Stores[em.Category] = map[string]Emotion{}
			}
			out.Emotions.Stores[em.Category][em.ID] = em
		}
	}
	if out.Hazards != nil {
		var c []Conflict
		out.Hazards.Playbooks, c = mergeKeyed(PathHazards, rule, hazards, hazardKey, hazardUpdated)
		conflicts = append(conflicts, c...)
	}
	if out.Triggers != nil {
		var c []Conflict
		out.Triggers.Triggers, c = mergeKeyed(PathTriggers, rule, trigs, triggerKey, triggerUpdated)
		conflicts = append(conflicts, c...)
	}
	return out, conflicts
}

// MergeScopes merges the project, user and global scopes (§5): per file
// and per id/key, project data wins, and user then global data fill in only
// what the project lacks. History is the project's only. Conflicts (a
// lower scope holding a different value) are returned for logging.
func MergeScopes(project, user, global Files) (Files, []Conflict) {
	out, conflicts := mergeFiles(ruleScope, project, user, global)
	out.History = project.History
	return out, conflicts
}

// ReadScopes reads the project .context directory and, when configured
// (non-empty), the user and global scope directories, and merges them with
// MergeScopes. A scope directory that does not exist is empty.
func ReadScopes(project Dir, userDir, globalDir string) (Files, []Conflict, error) {
	var layers [3]Files
	var errs []error
	for i, d := range []Dir{project, {Path: userDir}, {Path: globalDir}} {
		if d.Path == "" {
			continue
		}
		if _, err := os.Stat(d.Path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		f, err := d.Read()
		errs = append(errs, err)
		layers[i] = f
	}
	out, conflicts := MergeScopes(layers[0], layers[1], layers[2])
	return out, conflicts, errors.Join(errs...)
}
