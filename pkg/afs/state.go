package afs

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The sections of state.json and state.md, in rendering order.
const (
	SectionFacts         = "facts"
	SectionAssumptions   = "assumptions"
	SectionDecisions     = "decisions"
	SectionUncertainties = "uncertainties"
	SectionGoals         = "goals"
	SectionContext       = "context"
)

// Sections lists the state sections in rendering order.
func Sections() []string {
	return []string{SectionFacts, SectionAssumptions, SectionDecisions, SectionUncertainties, SectionGoals, SectionContext}
}

// StateEntry is one keyed value of the shared state.
type StateEntry struct {
	Section   string `json:"section"`
	Key       string `json:"key"`
	Value     string `json:"value"`
	UpdatedAt string `json:"updated_at"`
}

// StateFile is scratchpad/state.json.
type StateFile struct {
	Meta
	Entries []StateEntry `json:"entries"`
}

// Set inserts or replaces the entry with the same section and key.
func (s *StateFile) Set(e StateEntry) {
	for i := range s.Entries {
		if s.Entries[i].Section == e.Section && s.Entries[i].Key == e.Key {
			s.Entries[i] = e
			return
		}
	}
	s.Entries = append(s.Entries, e)
}

// Get returns the value under section and key.
func (s StateFile) Get(section, key string) (string, bool) {
	for _, e := range s.Entries {
		if e.Section == section && e.Key == key {
			return e.Value, true
		}
	}
	return "", false
}

// sorted returns the entries ordered by section (rendering order, unknown
// sections last by name) then key.
func (s StateFile) sorted() []StateEntry {
	rank := map[string]int{}
	for i, sec := range Sections() {
		rank[sec] = i
	}
	r := func(sec string) int {
		if n, ok := rank[sec]; ok {
			return n
		}
		return len(rank)
	}
	out := append([]StateEntry(nil), s.Entries...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if r(a.Section) != r(b.Section) {
			return r(a.Section) < r(b.Section)
		}
		if a.Section != b.Section {
			return a.Section < b.Section
		}
		return a.Key < b.Key
	})
	return out
}

// Snapshot is the cognitive export rendered into state.md below the state
// sections: the current metacognition and emotions, and the mitigations of
// the hazards matched by the pending tool call.
type Snapshot struct {
	Strategy       string
	ProgressStatus string
	CognitiveLoad  float64
	Anxiety        float64
	Confidence     float64
	Hazards        []HazardMatch
	// At stamps the snapshot lines.
	At string
}

// RenderStateMD renders state.md from state.json and an optional
// snapshot: a title, one "## <section>" per state section (always all
// six), then "## cognition" and, when hazards matched, "## hazards". Every
// entry is a line "- **<key>**: <value> [YYYY-MM-DD HH:MM]".
func RenderStateMD(s StateFile, snap *Snapshot) string {
	var b strings.Builder
	b.WriteString("# State\n\n")
	if s.LastUpdated != "" {
		fmt.Fprintf(&b, "_Generated from state.json (schema %s, %s %s) at %s. Do not edit: state.json is canonical._\n\n",
			s.SchemaVersion, s.Producer.Name, s.Producer.Version, s.LastUpdated)
	}
	entries := s.sorted()
	secs := Sections()
	for _, e := range entries {
		if !contains(secs, e.Section) {
			secs = append(secs, e.Section)
		}
	}
	for _, sec := range secs {
		fmt.Fprintf(&b, "## %s\n\n", sec)
		n := 0
		for _, e := range entries {
			if e.Section == sec {
				b.WriteString(bullet(e.Key, e.Value, e.UpdatedAt))
				n++
			}
		}
		if n > 0 {
			b.WriteString("\n")
		}
	}
	if snap != nil {
		b.WriteString("## cognition\n\n")
		strategy := snap.Strategy
		if strategy == "" {
			strategy = "(none)"
		}
		b.WriteString(bullet("strategy", strategy, snap.At))
		b.WriteString(bullet("progress_status", snap.ProgressStatus, snap.At))
		b.WriteString(bullet("cognitive_load", fmt.Sprintf("%.2f", snap.CognitiveLoad), snap.At))
		b.WriteString(bullet("anxiety", fmt.Sprintf("%.0f", snap.Anxiety), snap.At))
		b.WriteString(bullet("confidence", fmt.Sprintf("%.0f", snap.Confidence), snap.At))
		b.WriteString("\n")
		if len(snap.Hazards) > 0 {
			b.WriteString("## hazards\n\n")
			for _, h := range snap.Hazards {
				b.WriteString(bullet(h.ID, h.Trigger+" → "+h.Mitigation, snap.At))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func bullet(key, value, at string) string {
	return fmt.Sprintf("- **%s**: %s [%s]\n", oneLine(key), oneLine(value), minuteStamp(at))
}

// minuteStamp renders an ISO timestamp as "YYYY-MM-DD HH:MM" (UTC).
func minuteStamp(ts string) string {
	t, ok := ParseTime(ts)
	if !ok {
		return "0000-00-00 00:00"
	}
	return t.Format("2006-01-02 15:04")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.TrimSpace(s)
}

var (
	bulletRE  = regexp.MustCompile(`^- \*\*([^*]+)\*\*: (.*) \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]$`)
	headingRE = regexp.MustCompile(`^#{1,2} \S.*$`)
)

// MDLine is one bullet parsed from state.md.
type MDLine struct {
	Section string
	Key     string
	Value   string
	// Stamp is the "YYYY-MM-DD HH:MM" stamp.
	Stamp string
}

// ParseStateMD checks that state.md has the rendered shape (headings,
// bullets "- **key**: value [YYYY-MM-DD HH:MM]", an italic generator note
// and blank lines only) and returns its bullets. Problems wrap ErrShape.
func ParseStateMD(md string) ([]MDLine, error) {
	var out []MDLine
	section := ""
	for i, line := range strings.Split(strings.TrimRight(md, "\n"), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case headingRE.MatchString(line):
		case strings.HasPrefix(line, "_") && strings.HasSuffix(line, "_"):
		default:
			m := bulletRE.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%w: state.md line %d is not a heading or a \"- **key**: value [YYYY-MM-DD HH:MM]\" bullet: %q", ErrShape, i+1, line)
			}
			if section == "" {
				return nil, fmt.Errorf("%w: state.md line %d is a bullet outside any section", ErrShape, i+1)
			}
			out = append(out, MDLine{Section: section, Key: m[1], Value: m[2], Stamp: m[3]})
		}
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
