package runclaim

import (
	"strconv"
	"testing"
	"time"
)

func TestClaimCache(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	c := newClaimCache(0)
	c.put("r1", Claim{Digest: "d1"}, t0, t0)
	if got, ok := c.get("r1", t0.Add(claimCacheFor-time.Second)); !ok || got.Digest != "d1" {
		t.Fatalf("fresh claim: %+v %v", got, ok)
	}
	if _, ok := c.get("r1", t0.Add(claimCacheFor)); ok {
		t.Fatal("a claim is trusted past claimCacheFor")
	}
	if _, ok := c.get("r1", t0); ok {
		t.Fatal("an expired claim came back")
	}
	// A claim the bucket expires before the cache would is not cached.
	ttl := newClaimCache(time.Hour)
	ttl.put("old", Claim{Digest: "d"}, t0.Add(-time.Hour+claimCacheFor/2), t0)
	if _, ok := ttl.get("old", t0); ok {
		t.Fatal("a claim about to expire in the bucket was cached")
	}
	ttl.put("young", Claim{Digest: "d"}, t0, t0)
	if _, ok := ttl.get("young", t0); !ok {
		t.Fatal("a young claim was not cached")
	}
	// The cache stays bounded, dropping expired entries first.
	b := newClaimCache(0)
	for i := range maxCachedClaims + 10 {
		b.put("r"+strconv.Itoa(i), Claim{}, t0, t0)
	}
	if n := len(b.entries); n > maxCachedClaims {
		t.Fatalf("%d cached claims, at most %d", n, maxCachedClaims)
	}
	b.put("late", Claim{}, t0.Add(2*claimCacheFor), t0.Add(2*claimCacheFor))
	if n := len(b.entries); n != 1 {
		t.Fatalf("expired entries kept: %d", n)
	}
}
