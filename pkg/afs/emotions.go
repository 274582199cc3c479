package afs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"
)

// Emotion categories.
const (
	Fear          = "fear"
	Curiosity     = "curiosity"
	Satisfaction  = "satisfaction"
	Frustration   = "frustration"
	Excitement    = "excitement"
	Determination = "determination"
	Caution       = "caution"
	Relief        = "relief"
)

// Categories lists the emotion categories in canonical order.
func Categories() []string {
	return []string{Fear, Curiosity, Satisfaction, Frustration, Excitement, Determination, Caution, Relief}
}

// DecayRule is a category's decay per hour and prune threshold.
type DecayRule struct {
	DecayRate  float64 `json:"decay_rate"`
	PruneBelow float64 `json:"prune_below"`
}

// DefaultDecay returns the per-category defaults of the clarifications.
func DefaultDecay() map[string]DecayRule {
	return map[string]DecayRule{
		Fear: {0.02, 1}, Curiosity: {0.10, 2}, Satisfaction: {0.05, 1}, Frustration: {0.08, 2},
		Excitement: {0.15, 2}, Determination: {0.03, 1}, Caution: {0.06, 1}, Relief: {0.12, 2},
	}
}

// Session defaults.
const (
	DefaultAnxiety    = 30
	DefaultConfidence = 50
	ModeBuild         = "build"
)

// Heuristic thresholds (build mode, protocol §3.1).
const (
	HighAnxiety    = 70
	HighConfidence = 80
)

// EmotionSession is the session-level mood.
type EmotionSession struct {
	Mood            string  `json:"mood"`
	AnxietyLevel    float64 `json:"anxiety_level"`
	ConfidenceLevel float64 `json:"confidence_level"`
	Mode            string  `json:"mode"`
}

// Emotion is one entry of a category store.
type Emotion struct {
	ID           string   `json:"id"`
	Category     string   `json:"category"`
	Trigger      string   `json:"trigger"`
	Context      string   `json:"context"`
	Intensity    float64  `json:"intensity"`
	Timestamp    string   `json:"timestamp"`
	LastAccessed string   `json:"last_accessed"`
	DecayRate    float64  `json:"decay_rate"`
	RelatedFiles []string `json:"related_files,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	// UpdatedAt is when the entry last changed (merge rule §5).
	UpdatedAt string `json:"updated_at"`
}

// Emotions is scratchpad/emotions.json: the session, the decay rules used
// and one store per category keyed by id. On disk each store is a
// top-level key named after its category ("fear", "curiosity", …).
type Emotions struct {
	Meta
	Session EmotionSession                `json:"session"`
	Stores  map[string]map[string]Emotion `json:"-"`
	Decay   map[string]DecayRule          `json:"decay"`
}

// MarshalJSON writes the metadata, session and decay rules, then every
// category store as a top-level key, in canonical order.
func (e Emotions) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(k string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw)
		return nil
	}
	decay := e.Decay
	if decay == nil {
		decay = DefaultDecay()
	}
	fields := []struct {
		k string
		v any
	}{{"schema_version", e.SchemaVersion}, {"producer", e.Producer}, {"last_updated", e.LastUpdated}, {"session", e.Session}, {"decay", decay}}
	for _, c := range Categories() {
		store := e.Stores[c]
		if store == nil {
			store = map[string]Emotion{}
		}
		fields = append(fields, struct {
			k string
			v any
		}{c, store})
	}
	for _, f := range fields {
		if err := field(f.k, f.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes, with snake_case or camelCase
// keys; missing stores are empty and missing decay rules get the defaults.
func (e *Emotions) UnmarshalJSON(data []byte) error {
	idMaps := map[string]bool{}
	for _, c := range Categories() {
		idMaps[c] = true
	}
	type plain Emotions
	var p plain
	if err := decodeLoose(data, &p, idMaps); err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	*e = Emotions(p)
	e.Stores = map[string]map[string]Emotion{}
	for _, c := range Categories() {
		e.Stores[c] = map[string]Emotion{}
		raw, ok := top[c]
		if !ok || string(raw) == "null" {
			continue
		}
		var store map[string]json.RawMessage
		if err := json.Unmarshal(raw, &store); err != nil {
			return fmt.Errorf("emotions %s store: %w", c, err)
		}
		for id, r := range store {
			var em Emotion
			if err := decodeLoose(r, &em, nil); err != nil {
				return fmt.Errorf("emotions %s/%s: %w", c, id, err)
			}
			if em.ID == "" {
				em.ID = id
			}
			if em.Category == "" {
				em.Category = c
			}
			e.Stores[c][id] = em
		}
	}
	if e.Decay == nil {
		e.Decay = map[string]DecayRule{}
	}
	for c, r := range DefaultDecay() {
		if _, ok := e.Decay[c]; !ok {
			e.Decay[c] = r
		}
	}
	return nil
}

// NewEmotions returns the default emotions: neutral mood, anxiety 30,
// confidence 50, build mode, empty stores and the default decay rules.
func NewEmotions() Emotions {
	e := Emotions{Session: EmotionSession{Mood: "neutral", AnxietyLevel: DefaultAnxiety, ConfidenceLevel: DefaultConfidence, Mode: ModeBuild},
		Stores: map[string]map[string]Emotion{}, Decay: DefaultDecay()}
	for _, c := range Categories() {
		e.Stores[c] = map[string]Emotion{}
	}
	return e
}

// DecayedIntensity is the intensity of e after `hours` hours:
// intensity × (1 − decay_rate)^hours. Negative hours count as zero.
func DecayedIntensity(intensity, rate, hours float64) float64 {
	if hours <= 0 || rate <= 0 {
		return intensity
	}
	if rate >= 1 {
		return 0
	}
	return intensity * math.Pow(1-rate, hours)
}

// DecayAndPrune returns the emotions at time now: each entry's intensity
// decayed from its last_accessed time (rounded to 2 decimals, with
// last_accessed moved to now), and entries whose decayed intensity falls
// below their category's prune threshold removed. It reports how many were
// pruned.
func (e Emotions) DecayAndPrune(now time.Time) (Emotions, int) {
	out := e.clone()
	pruned := 0
	for cat, store := range out.Stores {
		rule := out.rule(cat)
		for id, em := range store {
			last, ok := ParseTime(em.LastAccessed)
			if !ok {
				continue
			}
			rate := em.DecayRate
			if rate == 0 {
				rate = rule.DecayRate
			}
			v := round2(DecayedIntensity(em.Intensity, rate, now.Sub(last).Hours()))
			if v < rule.PruneBelow {
				delete(store, id)
				pruned++
				continue
			}
			if now.After(last) {
				em.Intensity = v
				em.LastAccessed = Timestamp(now)
			}
			store[id] = em
		}
	}
	return out, pruned
}

func (e Emotions) rule(cat string) DecayRule {
	if r, ok := e.Decay[cat]; ok {
		return r
	}
	return DefaultDecay()[cat]
}

func (e Emotions) clone() Emotions {
	out := e
	out.Stores = make(map[string]map[string]Emotion, len(e.Stores))
	for c, s := range e.Stores {
		m := make(map[string]Emotion, len(s))
		for id, em := range s {
			m[id] = em
		}
		out.Stores[c] = m
	}
	out.Decay = make(map[string]DecayRule, len(e.Decay))
	for c, r := range e.Decay {
		out.Decay[c] = r
	}
	return out
}

// feel records an emotion in its category store at time ts. The id is the
// category and a digest of the trigger, so the same trigger reinforces one
// entry: its intensity becomes the larger of its decayed value and the new
// one, clamped to [1, 10].
func (e *Emotions) feel(cat, trigger, context string, intensity float64, files []string, ts string) {
	if e.Stores[cat] == nil {
		e.Stores[cat] = map[string]Emotion{}
	}
	sum := sha256.Sum256([]byte(trigger))
	id := cat + "-" + hex.EncodeToString(sum[:4])
	intensity = math.Max(1, math.Min(10, intensity))
	now, _ := ParseTime(ts)
	if old, ok := e.Stores[cat][id]; ok {
		if last, ok := ParseTime(old.LastAccessed); ok {
			rate := old.DecayRate
			intensity = math.Max(intensity, round2(DecayedIntensity(old.Intensity, rate, now.Sub(last).Hours())))
		}
		old.Intensity = math.Min(10, intensity)
		old.Context = context
		old.LastAccessed, old.UpdatedAt = ts, ts
		old.RelatedFiles = mergeStrings(old.RelatedFiles, files)
		e.Stores[cat][id] = old
		return
	}
	e.Stores[cat][id] = Emotion{ID: id, Category: cat, Trigger: trigger, Context: context, Intensity: intensity,
		Timestamp: ts, LastAccessed: ts, UpdatedAt: ts, DecayRate: e.rule(cat).DecayRate, RelatedFiles: files}
}

// shift moves anxiety and confidence by the deltas, clamped to [0, 100],
// and recomputes the mood.
func (e *Emotions) shift(dAnxiety, dConfidence float64, frustrated bool) {
	s := &e.Session
	s.AnxietyLevel = math.Max(0, math.Min(100, s.AnxietyLevel+dAnxiety))
	s.ConfidenceLevel = math.Max(0, math.Min(100, s.ConfidenceLevel+dConfidence))
	switch {
	case frustrated:
		s.Mood = "frustrated"
	case s.AnxietyLevel >= HighAnxiety:
		s.Mood = "anxious"
	case s.ConfidenceLevel >= HighConfidence:
		s.Mood = "confident"
	default:
		s.Mood = "neutral"
	}
}

// Heuristics are the build-mode behaviours the emotions drive (§3.1). They
// are never shown in model output.
type Heuristics struct {
	// ExtraChecks: high anxiety asks for more verification.
	ExtraChecks bool `json:"extra_checks"`
	// ConfirmDestructive: high anxiety makes destructive operations need
	// approval.
	ConfirmDestructive bool `json:"confirm_destructive"`
	// FastPath: high confidence allows larger steps with less hedging.
	FastPath bool `json:"fast_path"`
}

// Heuristics returns the behaviours the session's levels call for.
func (e Emotions) Heuristics() Heuristics {
	a, c := e.Session.AnxietyLevel, e.Session.ConfidenceLevel
	return Heuristics{ExtraChecks: a >= HighAnxiety, ConfirmDestructive: a >= HighAnxiety, FastPath: c >= HighConfidence && a < HighAnxiety}
}

// sortedEmotions lists every stored emotion by category order then id.
func (e Emotions) sortedEmotions() []Emotion {
	var out []Emotion
	for _, s := range e.Stores {
		for _, em := range s {
			out = append(out, em)
		}
	}
	rank := map[string]int{}
	for i, c := range Categories() {
		rank[c] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return rank[out[i].Category] < rank[out[j].Category]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func mergeStrings(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
