package runclaim

import (
	"sync"
	"time"
)

// claimCacheFor is how long a process trusts a claim it has read. A claim
// is created once and never rewritten (History 1, Create only), so a
// cached one can only be stale after it left the bucket: by its age (the
// bucket's TTL, which a cached claim never comes near) or by hand, which
// this process then notices within claimCacheFor.
const claimCacheFor = time.Minute

// maxCachedClaims bounds the claims one process keeps.
const maxCachedClaims = 4096

// claimCache keeps claims read from the bucket, so the phases and the
// recorder admit each event of a run without a round trip to the bucket.
type claimCache struct {
	mu      sync.Mutex
	entries map[string]cachedClaim
	// ttl is the bucket's TTL (0: none).
	ttl time.Duration
}

type cachedClaim struct {
	claim Claim
	until time.Time
}

func newClaimCache(ttl time.Duration) *claimCache {
	return &claimCache{entries: map[string]cachedClaim{}, ttl: ttl}
}

// get returns the cached claim of runID, if it is still trusted at now.
func (c *claimCache) get(runID string, now time.Time) (Claim, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[runID]
	if !ok || !now.Before(e.until) {
		delete(c.entries, runID)
		return Claim{}, false
	}
	return e.claim, true
}

// put caches a claim stored at created, unless the bucket would expire it
// before the cache does.
func (c *claimCache) put(runID string, cl Claim, created, now time.Time) {
	until := now.Add(claimCacheFor)
	if c.ttl > 0 && !until.Before(created.Add(c.ttl)) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[runID]; !ok && len(c.entries) >= maxCachedClaims {
		for k, e := range c.entries {
			if !now.Before(e.until) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < maxCachedClaims {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[runID] = cachedClaim{claim: cl, until: until}
}
