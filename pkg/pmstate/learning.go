package pmstate

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codali-dev/codali/pkg/bus"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
)

// learnPrefix starts the key of a project's learning record, next to its
// cognition state ("pm.") in the same bucket.
const learnPrefix = "learn."

// Bounds of a project's learning record.
const (
	// DefaultMaxGolden is how many golden examples a project keeps; the
	// oldest are evicted.
	DefaultMaxGolden = 50
	// DefaultMaxFailures is how many failure summaries a project keeps.
	DefaultMaxFailures = 20
	// MaxGoldenPatchBytes bounds a golden example's patch excerpt.
	MaxGoldenPatchBytes = 2048
	// maxLearnText bounds the other text fields of the record.
	maxLearnText = 400
)

// Golden is a golden example: a bounded, redacted summary of a run that
// passed, which later bundles rank in to bias towards known-good patterns.
type Golden struct {
	RunID string `json:"run_id"`
	// Intent is the request.
	Intent string `json:"intent"`
	// Plan is the plan's summary.
	Plan string `json:"plan"`
	// Files are the touched files.
	Files []string `json:"files"`
	// Patch summarises the change: files with their operation, line
	// counts, and a bounded excerpt of the diff.
	Patch string `json:"patch"`
	// At is when the run passed.
	At time.Time `json:"at"`
}

// Failure summarises a failed attempt for the next runs on the project.
type Failure struct {
	RunID   string    `json:"run_id"`
	Attempt int       `json:"attempt"`
	Intent  string    `json:"intent"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

// Learning is what a project learned from its runs.
type Learning struct {
	Golden   []Golden  `json:"golden"`
	Failures []Failure `json:"failures"`
}

// LearningKey is the KV key of a project's learning record (golden
// examples, failure summaries), beside its state key (ProjectKey).
func LearningKey(project string) (string, error) { return learnKey(project) }

// learnKey is the KV key of a project's learning record.
func learnKey(project string) (string, error) {
	if _, err := ProjectKey(project); err != nil {
		return "", err
	}
	return learnPrefix + base64.RawURLEncoding.EncodeToString([]byte(project)), nil
}

// Learning returns the project's learning record (empty when none).
func (s *Store) Learning(ctx context.Context, project string) (Learning, error) {
	key, err := learnKey(project)
	if err != nil {
		return Learning{}, err
	}
	kv := s.kv
	if s.replica != nil {
		kv = s.replica
	}
	l, _, err := s.getLearning(ctx, kv, project, key)
	return l, err
}

func (s *Store) getLearning(ctx context.Context, kv jetstream.KeyValue, project, key string) (Learning, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	entry, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Learning{}, 0, nil
	}
	if err != nil {
		return Learning{}, 0, fmt.Errorf("could not read the learning record of project %q: %w", project, err)
	}
	l, err := s.learned.decode(key, entry.Value(), decodeLearning, Learning.clone)
	if err != nil {
		return Learning{}, 0, fmt.Errorf("%w: learning record of project %q: %w", ErrCorruptState, project, err)
	}
	return l, entry.Revision(), nil
}

func decodeLearning(data []byte) (Learning, error) {
	var l Learning
	err := json.Unmarshal(data, &l)
	return l, err
}

// clone returns a deep copy of l (nil lists stay nil).
func (l Learning) clone() Learning {
	out := Learning{Golden: slices.Clone(l.Golden), Failures: slices.Clone(l.Failures)}
	for i := range out.Golden {
		out.Golden[i].Files = slices.Clone(out.Golden[i].Files)
	}
	return out
}

// asDecoded returns a deep copy of l as decodeLearning gives it back from
// its JSON: every time as its own JSON encoding decodes (no monotonic
// reading; the zone its offset names). ok is false when a string is not
// valid UTF-8, which the JSON encoding changes.
func (l Learning) asDecoded() (Learning, bool) {
	out := l.clone()
	for i := range out.Golden {
		g := &out.Golden[i]
		if !validUTF8(g.RunID, g.Intent, g.Plan, g.Patch) || !validUTF8(g.Files...) || !asDecodedTime(&g.At) {
			return Learning{}, false
		}
	}
	for i := range out.Failures {
		f := &out.Failures[i]
		if !validUTF8(f.RunID, f.Intent, f.Reason) || !asDecodedTime(&f.At) {
			return Learning{}, false
		}
	}
	return out, true
}

func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// asDecodedTime replaces *t with its JSON encoding decoded.
func asDecodedTime(t *time.Time) bool {
	raw, err := t.MarshalJSON()
	if err != nil {
		return false
	}
	var d time.Time
	if d.UnmarshalJSON(raw) != nil {
		return false
	}
	*t = d
	return true
}

// AddGolden stores a golden example, bounded (see Golden), keeping the
// max (DefaultMaxGolden when <= 0) most recent ones. A run already
// recorded is replaced, so a redelivered event adds nothing.
func (s *Store) AddGolden(ctx context.Context, project string, g Golden, max int) error {
	if max <= 0 {
		max = DefaultMaxGolden
	}
	g = boundGolden(g)
	return s.updateLearning(ctx, project, func(l *Learning) {
		kept := l.Golden[:0]
		for _, e := range l.Golden {
			if e.RunID != g.RunID {
				kept = append(kept, e)
			}
		}
		l.Golden = append(kept, g)
		if n := len(l.Golden) - max; n > 0 {
			l.Golden = l.Golden[n:]
		}
	})
}

// AddFailure stores a failure summary, keeping the max
// (DefaultMaxFailures when <= 0) most recent; a redelivered attempt adds
// nothing.
func (s *Store) AddFailure(ctx context.Context, project string, f Failure, max int) error {
	if max <= 0 {
		max = DefaultMaxFailures
	}
	f.Intent, f.Reason = clip(f.Intent, maxLearnText), clip(f.Reason, maxLearnText)
	return s.updateLearning(ctx, project, func(l *Learning) {
		for _, e := range l.Failures {
			if e.RunID == f.RunID && e.Attempt == f.Attempt {
				return
			}
		}
		l.Failures = append(l.Failures, f)
		if n := len(l.Failures) - max; n > 0 {
			l.Failures = l.Failures[n:]
		}
	})
}

// updateLearning applies fn to the project's record with compare-and-set,
// retrying on conflicts and one at a time per project in this Store, like
// Update. It always writes, so a record read from a replica that lags
// fails the compare-and-set and is read again.
func (s *Store) updateLearning(ctx context.Context, project string, fn func(*Learning)) error {
	key, err := learnKey(project)
	if err != nil {
		return err
	}
	unlock, err := s.locks.lock(ctx, key)
	if err != nil {
		return fmt.Errorf("could not update the learning record of project %q: %w", project, err)
	}
	defer unlock()
	first := true
	op := func() error {
		// The first attempt writes on top of this Store's last write
		// without reading, when that pays (see lastWrites).
		l, rev, onLast := s.lastLearning.get(key, Learning.clone)
		if !first || !onLast {
			var err error
			if l, rev, err = s.getLearning(ctx, s.kv, project, key); err != nil {
				return backoff.Permanent(err)
			}
			s.lastLearning.read(key, rev)
			onLast = false
		}
		first = false
		fn(&l)
		data, err := json.Marshal(l)
		if err != nil {
			return backoff.Permanent(err)
		}
		wctx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
		var newRev uint64
		if rev == 0 {
			newRev, err = s.kv.Create(wctx, key, data)
		} else {
			newRev, err = s.kv.Update(wctx, key, data, rev)
		}
		cancel()
		switch {
		case err == nil:
			s.lastLearning.wrote(key, newRev, l.clone())
			if d, ok := l.asDecoded(); ok {
				// The next read of these bytes (a prompt's) copies
				// this instead of decoding them.
				s.learned.keep(key, sha256.Sum256(data), d)
			}
		case !bus.IsConflict(err):
			return backoff.Permanent(err)
		case onLast:
			s.lastLearning.missed(key)
		}
		return err
	}
	if err := backoff.Retry(op, s.newBackoff(ctx)); err != nil {
		if bus.IsConflict(err) {
			return fmt.Errorf("%w: learning record of project %q: %w", ErrConflict, project, err)
		}
		return fmt.Errorf("could not update the learning record of project %q: %w", project, err)
	}
	return nil
}

func boundGolden(g Golden) Golden {
	g.Intent, g.Plan = clip(g.Intent, maxLearnText), clip(g.Plan, maxLearnText)
	g.Patch = clip(g.Patch, MaxGoldenPatchBytes)
	if len(g.Files) > 20 {
		g.Files = append(g.Files[:20:20], fmt.Sprintf("… and %d more", len(g.Files)-20))
	} else {
		g.Files = slices.Clone(g.Files)
	}
	for i, f := range g.Files {
		// A repository's paths may be long (4 KB each): 50 examples
		// of 20 of them would outgrow the bucket's largest value.
		g.Files[i] = clip(f, maxLearnText)
	}
	return g
}

// clip bounds s to n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// RankGolden returns up to n golden examples most relevant to request:
// by the number of the request's words (three letters or more, case
// folded) found in an example's intent, plan and files, then by recency.
// Examples sharing no word are left out.
func RankGolden(examples []Golden, request string, n int) []Golden {
	want := words(request)
	type scored struct {
		g     Golden
		score int
		idx   int
	}
	var list []scored
	for i, g := range examples {
		have := words(g.Intent + " " + g.Plan + " " + strings.Join(g.Files, " "))
		score := 0
		for w := range want {
			if have[w] {
				score++
			}
		}
		if score > 0 {
			list = append(list, scored{g, score, i})
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].idx > list[j].idx // newer first
	})
	if len(list) > n {
		list = list[:max(n, 0)]
	}
	out := make([]Golden, len(list))
	for i, s := range list {
		out[i] = s.g
	}
	return out
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 {
			out[w] = true
		}
	}
	return out
}
