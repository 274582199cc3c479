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
}

// defaultCachedRuns is Recorder.CachedRuns' default.
const defaultCachedRuns = 1024

// historyCache is a least-recently-used cache of run histories. Entries are
// taken out while in use (take) and put back after a successful record
// (put), so an entry is never shared and a failed record leaves none.
type historyCache struct {
	mu    sync.Mutex
	runs  map[string]*list.Element // of *cacheEntry
	order list.List                // most recently put first
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
	return h.order.Remove(el).(*cacheEntry).c, true
}

// put stores the run's entry as the most recent, dropping the least
// recent ones past limit (<= 0: defaultCachedRuns).
func (h *historyCache) put(runID string, c cachedHistory, limit int) {
	if limit <= 0 {
		limit = defaultCachedRuns
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs == nil {
		h.runs = map[string]*list.Element{}
	}
	if el, ok := h.runs[runID]; ok {
		h.order.Remove(el)
	}
	h.runs[runID] = h.order.PushFront(&cacheEntry{runID: runID, c: c})
	for h.order.Len() > limit {
		oldest := h.order.Back()
		delete(h.runs, h.order.Remove(oldest).(*cacheEntry).runID)
	}
}

// len returns how many runs are cached.
func (h *historyCache) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs)
}
