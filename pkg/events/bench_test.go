package events

import (
	"fmt"
	"testing"
	"time"
)

// benchPlanEvent is a plan event of about 8 KB, the size of a built event
// in `codali bench`.
func benchPlanEvent(b *testing.B) Envelope {
	b.Helper()
	run := Run{Request: Requested{Request: "add a test for the parser", Repo: RepoRef{Path: "/repo"}}, Project: "p", MaxRetries: 2}
	plan := Plan{Summary: "one step"}
	for i := range 60 {
		plan.Steps = append(plan.Steps, PlanStep{ID: fmt.Sprint(i), Description: fmt.Sprintf("step %d: edit file_%d.go and add the \"case\" {%d}", i, i, i)})
	}
	e, err := New("run-1", KindPlan, 1, "codali/architect", time.Unix(0, 0), PlanData{Run: run, Plan: plan})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkRunOf(b *testing.B) {
	e := benchPlanEvent(b)
	b.SetBytes(int64(len(e.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if RunOf(e).Project != "p" {
			b.Fatal("no run")
		}
	}
}

func BenchmarkWithExchanges(b *testing.B) {
	e := benchPlanEvent(b)
	refs := []ExchangeRef{{Hash: "h1", Step: 1, Ref: ArtifactRef{Bucket: "b", Name: "exchanges/x", Size: 3, SHA256: "x"}}}
	b.SetBytes(int64(len(e.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WithExchanges(e, refs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFits(b *testing.B) {
	e := benchPlanEvent(b)
	b.ReportAllocs()
	for b.Loop() {
		if !e.Fits(DefaultMaxEventBytes) {
			b.Fatal("too large")
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	e := benchPlanEvent(b)
	raw, err := e.Encode(0)
	if err != nil {
		b.Fatal(err)
	}
	subject, err := e.NATSSubject()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Decoder{}).Decode(subject, raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	e := benchPlanEvent(b)
	b.SetBytes(int64(len(e.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Encode(DefaultMaxEventBytes); err != nil {
			b.Fatal(err)
		}
	}
}
