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
		h.put(fmt.Sprint(i), cachedHistory{lastSeq: uint64(i)}, 3, 0)
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
	h.put("3", cachedHistory{lastSeq: 33}, 3, 0)
	h.put("5", cachedHistory{}, 2, 0)
	if _, ok := h.take("4"); ok {
		t.Error("run 4 kept, want it evicted as the least recent")
	}
	if c, ok := h.take("3"); !ok || c.lastSeq != 33 {
		t.Errorf("take(3) = %v, %v, want the replaced entry", c, ok)
	}
	// The default limit applies when none is set.
	for i := range defaultCachedRuns + 10 {
		h.put(fmt.Sprint("d", i), cachedHistory{}, 0, 0)
	}
	if h.len() != defaultCachedRuns {
		t.Fatalf("len = %d, want the default limit %d", h.len(), defaultCachedRuns)
	}
}

// sized returns an entry whose state encodes to n bytes.
func sized(n int) cachedHistory {
	return cachedHistory{stateBytes: n}
}

// TestHistoryCacheByteBudget: past the byte budget the least recent runs
// are dropped, an entry larger than the budget is not kept, and taking or
// replacing entries keeps the count right.
func TestHistoryCacheByteBudget(t *testing.T) {
	var h historyCache
	h.put("a", sized(40), 10, 100)
	h.put("b", sized(40), 10, 100)
	h.put("a", sized(50), 10, 100) // replaced: 50 + 40
	if h.len() != 2 || h.bytes != 90 {
		t.Fatalf("len %d bytes %d, want 2 and 90", h.len(), h.bytes)
	}
	h.put("c", sized(30), 10, 100) // 120 > 100: b (least recent) goes
	if _, ok := h.take("b"); ok || h.bytes != 80 {
		t.Fatalf("b kept or bytes %d, want b dropped and 80", h.bytes)
	}
	if _, ok := h.take("a"); !ok || h.bytes != 30 {
		t.Fatalf("take(a) failed or bytes %d, want 30", h.bytes)
	}
	h.put("c", sized(101), 10, 100) // c grew past the budget: dropped
	if _, ok := h.take("c"); ok {
		t.Fatal("an entry larger than the budget was kept")
	}
	h.put("d", sized(60), 10, 100)
	h.put("huge", sized(101), 10, 100)
	if h.len() != 1 || h.bytes != 60 {
		t.Fatalf("len %d bytes %d, want d alone: an entry that cannot fit evicts nothing", h.len(), h.bytes)
	}
}
