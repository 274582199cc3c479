package events

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestMergeAndTotalUsage(t *testing.T) {
	a := Call("builder", "local", "m", 10, 2, time.Second)
	b := Call("architect", "local", "m", 5, 1, 2*time.Second)
	list := MergeUsage(nil, a, b, a)
	if len(list) != 2 || list[0].Phase != "architect" || list[1].Calls != 2 || list[1].InputTokens != 20 || list[1].DurationMS != 2000 {
		t.Fatalf("merged %+v", list)
	}
	if tot := TotalUsage(list); tot != (UsageTotal{Calls: 3, InputTokens: 25, OutputTokens: 5, DurationMS: 4000}) {
		t.Fatalf("total %+v", tot)
	}
	if UsageTotalOf(Run{}) != nil {
		t.Fatal("a run without usage has a total")
	}
	orig := []ModelUsage{a}
	_ = MergeUsage(orig, a)
	if orig[0].Calls != 1 {
		t.Fatal("MergeUsage modified its input")
	}
}

func TestWithUsage(t *testing.T) {
	base := errors.New("contract")
	u := []ModelUsage{Call("critic", "p", "m", 1, 1, 0)}
	err := fmt.Errorf("wrapped: %w", WithUsage(base, u))
	if !errors.Is(err, base) || len(UsageOfError(err)) != 1 || err.Error() != "wrapped: contract" {
		t.Fatalf("err %v usage %v", err, UsageOfError(err))
	}
	if WithUsage(nil, u) != nil || WithUsage(base, nil) != base || UsageOfError(base) != nil {
		t.Fatal("nil and usage-less cases")
	}
}
