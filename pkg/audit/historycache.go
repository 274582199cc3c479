package audit

import (
	"container/list"
	"sync"

	"github.com/codali-dev/codali/pkg/rao"
)

// cachedHistory is what the recorder keeps of a run in progress.
type cachedHistory struct {
	events  []rao.Event
	lastSeq uint64
	// chain is positioned after the last event, so the state need not be
	// replayed again.
	chain *rao.Chain
	// enc redacts only the parts of the state that changed.
	enc *stateEncoder
	// stateBytes is the encoded size of the state after the last event.
	stateBytes int
	// state is the state after the last event as the record that
	// appended it left it, kept so the next event need not decode the
	// chain's state again; nil when it must be (an entry read from the
	// store, or a state that redaction changed: see Recorder.record).
	// The next record takes it and mutates it in place, so an entry is
	// only ever put back with the state of a fully successful record.
	state *State
}

// takeState returns the run's state after the entry's last event and
// leaves the entry without one: the caller mutates it.
func (c *cachedHistory) takeState(runID string) (State, error) {
	if c.state != nil {
		st := *c.state
		c.state = nil
		return st, nil
	}
	return DecodeState(runID, c.chain.State())
}

// size is the entry's weight against the byte budget: the encoded size of
// the last state it recorded (the entry holds a few copies of it, decoded
// and as trees, besides the history).
func (c cachedHistory) size() int { return c.stateBytes }

// Defaults of Recorder.CachedRuns and Recorder.CachedStateBytes.
const (
	defaultCachedRuns       = 1024
	defaultCachedStateBytes = 64 << 20
)

// historyCache is a least-recently-used cache of run histories. Entries are
// taken out while in use (take) and put back after a successful record
// (put), so an entry is never shared and a failed record leaves none.
type historyCache struct {
	mu    sync.Mutex
	runs  map[string]*list.Element // of *cacheEntry
	order list.List                // most recently put first
	bytes int                      // sum of the entries' sizes
}

type cacheEntry struct {
	runID string
	c     cachedHistory
}

// take removes and returns the run's entry.
func (h *historyCache) take(runID string) (cachedHistory, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	el, ok := h.runs[runID]
	if !ok {
		return cachedHistory{}, false
	}
	delete(h.runs, runID)
	c := h.order.Remove(el).(*cacheEntry).c
	h.bytes -= c.size()
	return c, true
}

// put stores the run's entry as the most recent, dropping the least
// recent ones past maxRuns entries or maxBytes of state (<= 0: the
// defaults); an entry larger than maxBytes on its own is not kept.
func (h *historyCache) put(runID string, c cachedHistory, maxRuns, maxBytes int) {
	if maxRuns <= 0 {
		maxRuns = defaultCachedRuns
	}
	if maxBytes <= 0 {
		maxBytes = defaultCachedStateBytes
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs == nil {
		h.runs = map[string]*list.Element{}
	}
	if el, ok := h.runs[runID]; ok {
		delete(h.runs, runID)
		h.bytes -= h.order.Remove(el).(*cacheEntry).c.size()
	}
	if c.size() > maxBytes {
		return
	}
	h.runs[runID] = h.order.PushFront(&cacheEntry{runID: runID, c: c})
	h.bytes += c.size()
	for h.order.Len() > maxRuns || h.bytes > maxBytes {
		e := h.order.Remove(h.order.Back()).(*cacheEntry)
		delete(h.runs, e.runID)
		h.bytes -= e.c.size()
	}
}

// has reports whether the run has an entry.
func (h *historyCache) has(runID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.runs[runID]
	return ok
}

// len returns how many runs are cached.
func (h *historyCache) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs)
}
