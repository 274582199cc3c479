package audit

import (
	"fmt"
	"testing"
)

// TestHistoryCacheLRU: the cache keeps at most its limit, drops the least
// recently put run first, and an entry taken out is no longer there.
func TestHistoryCacheLRU(t *testing.T) {
	var h historyCache
	for i := range 5 {
		h.put(fmt.Sprint(i), cachedHistory{lastSeq: uint64(i)}, 3)
	}
	if h.len() != 3 {
		t.Fatalf("len = %d, want 3", h.len())
	}
	for _, gone := range []string{"0", "1"} {
		if _, ok := h.take(gone); ok {
			t.Errorf("run %s still cached, want evicted", gone)
		}
	}
	c, ok := h.take("2")
	if !ok || c.lastSeq != 2 {
		t.Fatalf("take(2) = %v, %v", c, ok)
	}
	if _, ok := h.take("2"); ok {
		t.Fatal("an entry taken out is still cached")
	}
	// Putting 3 again makes it the most recent: 4 goes first.
	h.put("3", cachedHistory{lastSeq: 33}, 3)
	h.put("5", cachedHistory{}, 2)
	if _, ok := h.take("4"); ok {
		t.Error("run 4 kept, want it evicted as the least recent")
	}
	if c, ok := h.take("3"); !ok || c.lastSeq != 33 {
		t.Errorf("take(3) = %v, %v, want the replaced entry", c, ok)
	}
	// The default limit applies when none is set.
	for i := range defaultCachedRuns + 10 {
		h.put(fmt.Sprint("d", i), cachedHistory{}, 0)
	}
	if h.len() != defaultCachedRuns {
		t.Fatalf("len = %d, want the default limit %d", h.len(), defaultCachedRuns)
	}
}
