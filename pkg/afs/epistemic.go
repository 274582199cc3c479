package afs

// Epistemic kinds.
const (
	KindGoldenFact    = "golden_facts"
	KindWorkingFact   = "working_facts"
	KindAssumption    = "assumptions"
	KindUnknown       = "unknowns"
	KindContradiction = "contradictions"
)

// EpistemicItem is one statement with its confidence and source.
type EpistemicItem struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind,omitempty"`
	Statement  string  `json:"statement"`
	Confidence float64 `json:"confidence"`
	Source     string  `json:"source,omitempty"`
	UpdatedAt  string  `json:"updated_at"`
}

// Epistemic is scratchpad/epistemic.json.
type Epistemic struct {
	Meta
	GoldenFacts    []EpistemicItem `json:"golden_facts"`
	WorkingFacts   []EpistemicItem `json:"working_facts"`
	Assumptions    []EpistemicItem `json:"assumptions"`
	Unknowns       []EpistemicItem `json:"unknowns"`
	Contradictions []EpistemicItem `json:"contradictions"`
}

// NewEpistemic returns an epistemic file with every list empty.
func NewEpistemic() Epistemic {
	return Epistemic{GoldenFacts: []EpistemicItem{}, WorkingFacts: []EpistemicItem{}, Assumptions: []EpistemicItem{},
		Unknowns: []EpistemicItem{}, Contradictions: []EpistemicItem{}}
}

// list returns the list of a kind, or nil for an unknown kind.
func (e *Epistemic) list(kind string) *[]EpistemicItem {
	switch kind {
	case KindGoldenFact:
		return &e.GoldenFacts
	case KindWorkingFact:
		return &e.WorkingFacts
	case KindAssumption:
		return &e.Assumptions
	case KindUnknown:
		return &e.Unknowns
	case KindContradiction:
		return &e.Contradictions
	}
	return nil
}

// Add inserts the item into its kind's list, replacing one with the same
// id; it reports false for an unknown kind.
func (e *Epistemic) Add(it EpistemicItem) bool {
	l := e.list(it.Kind)
	if l == nil {
		return false
	}
	it.Kind = ""
	for i := range *l {
		if (*l)[i].ID == it.ID {
			(*l)[i] = it
			return true
		}
	}
	*l = append(*l, it)
	return true
}
