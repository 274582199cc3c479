package afs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Learning kinds and the hivemind files that hold them.
const (
	LearningFear         = "fear"
	LearningSatisfaction = "satisfaction"
	LearningKnowledge    = "knowledge"
	LearningDecision     = "decision"
	LearningPreference   = "preference"
)

var learningFiles = map[string]string{
	LearningFear: "fears.json", LearningSatisfaction: "satisfaction.json", LearningKnowledge: "knowledge.json",
	LearningDecision: "decisions.json", LearningPreference: "preferences.json",
}

// ErrNotApproved: a hivemind promotion without an explicit approval.
var ErrNotApproved = errors.New("afs: hivemind promotion needs an explicit approval")

// Approval is the explicit approval a hivemind promotion needs (§5): who
// approved, why, and the override that records it.
type Approval struct {
	By       string `json:"by"`
	Reason   string `json:"reason"`
	Override string `json:"override"`
	At       string `json:"at"`
}

// Learning is one cross-session learning in a hivemind file.
type Learning struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Content    string    `json:"content"`
	Context    string    `json:"context,omitempty"`
	Confidence float64   `json:"confidence,omitempty"`
	Source     string    `json:"source"`
	UpdatedAt  string    `json:"updated_at"`
	Approval   *Approval `json:"approval,omitempty"`
}

// HivemindFile is hivemind/<kind>.json as Codali writes it.
type HivemindFile struct {
	Meta
	Entries []Learning `json:"entries"`
}

// Learnings are the promotion candidates of a projected .context: fears
// and cautions of intensity 5 or more (with their context, the mitigation
// or error), satisfactions of 4 or more, golden and working facts, and
// decisions. Ids are the kind and a digest of the content, so the same
// learning from two runs is one entry.
func Learnings(f Files, source string) []Learning {
	var out []Learning
	add := func(kind, content, context string, confidence float64, updated string) {
		sum := sha256.Sum256([]byte(kind + "\x00" + content))
		out = append(out, Learning{ID: kind + "-" + hex.EncodeToString(sum[:6]), Kind: kind, Content: content, Context: context,
			Confidence: confidence, Source: source, UpdatedAt: updated})
	}
	if f.Emotions != nil {
		for _, em := range f.Emotions.sortedEmotions() {
			switch {
			case (em.Category == Fear || em.Category == Caution) && em.Intensity >= 5:
				add(LearningFear, em.Trigger, em.Context, round2(em.Intensity/10), firstNonEmpty(em.UpdatedAt, em.LastAccessed))
			case em.Category == Satisfaction && em.Intensity >= 4:
				add(LearningSatisfaction, em.Trigger, em.Context, round2(em.Intensity/10), firstNonEmpty(em.UpdatedAt, em.LastAccessed))
			}
		}
	}
	if e := f.Epistemic; e != nil {
		for _, it := range append(append([]EpistemicItem{}, e.GoldenFacts...), e.WorkingFacts...) {
			add(LearningKnowledge, it.Statement, it.Source, it.Confidence, it.UpdatedAt)
		}
	}
	if f.State != nil {
		for _, s := range f.State.sorted() {
			if s.Section == SectionDecisions {
				add(LearningDecision, s.Value, s.Key, 0, s.UpdatedAt)
			}
		}
	}
	return out
}

// Promote merges learnings into the hivemind files of a scope directory
// (a user or global .context), each stamped with the approval. Without an
// approval naming who, why and the recording override it does nothing and
// returns ErrNotApproved. Existing entries are kept; an entry with the
// same id is replaced when the promoted one is at least as new (§5). It
// returns how many entries were added or replaced.
func Promote(dir string, p Producer, learnings []Learning, a Approval, now time.Time) (int, error) {
	if a.By == "" || a.Reason == "" || a.Override == "" {
		return 0, fmt.Errorf("%w: by, reason and override are required", ErrNotApproved)
	}
	if a.At == "" {
		a.At = Timestamp(now)
	}
	byFile := map[string][]Learning{}
	for _, l := range learnings {
		name, ok := learningFiles[l.Kind]
		if !ok {
			return 0, fmt.Errorf("%w: learning %s has unknown kind %q", ErrShape, l.ID, l.Kind)
		}
		l.Approval = &a
		byFile[name] = append(byFile[name], l)
	}
	changed := 0
	for _, name := range sortedKeys(byFile) {
		path := filepath.Join(dir, DirHivemind, name)
		var hf HivemindFile
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := decodeLoose(data, &hf, nil); err != nil {
				return changed, fmt.Errorf("%w: %s: %w", ErrRead, path, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return changed, fmt.Errorf("%w: %w", ErrRead, err)
		}
		index := map[string]int{}
		for i, l := range hf.Entries {
			index[l.ID] = i
		}
		for _, l := range byFile[name] {
			i, ok := index[l.ID]
			switch {
			case !ok:
				index[l.ID] = len(hf.Entries)
				hf.Entries = append(hf.Entries, l)
			case !newer(hf.Entries[i].UpdatedAt, l.UpdatedAt):
				hf.Entries[i] = l
			default:
				continue
			}
			changed++
		}
		sort.SliceStable(hf.Entries, func(i, j int) bool { return hf.Entries[i].ID < hf.Entries[j].ID })
		hf.Meta = NewMeta(p, now)
		out, err := json.MarshalIndent(hf, "", "  ")
		if err != nil {
			return changed, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return changed, err
		}
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			return changed, err
		}
	}
	return changed, nil
}
