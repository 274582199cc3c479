package events

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestWithExchanges(t *testing.T) {
	refs := []ExchangeRef{{Hash: "h1", Step: 1, Ref: ArtifactRef{Bucket: "b", Name: "exchanges/x", Size: 3, SHA256: "x"}}}
	plan := PlanData{Plan: Plan{Summary: "s", Steps: []PlanStep{{ID: "1", Description: "d"}}, Verify: []VerifyCommand{{Name: "t", Command: []string{"true"}}}}}
	e, err := New("run-1", KindPlan, 1, "codali/architect", time.Unix(0, 0), plan)
	if err != nil {
		t.Fatal(err)
	}
	got, err := WithExchanges(e, refs)
	if err != nil {
		t.Fatal(err)
	}
	var d PlanData
	if err := DecodeData(got, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Exchanges) != 1 || d.Exchanges[0].Hash != "h1" || d.Plan.Summary != "s" {
		t.Fatalf("decoded %+v", d)
	}
	if string(got.Data[:len(e.Data)-1]) != string(e.Data[:len(e.Data)-1]) {
		t.Fatal("the original data bytes changed")
	}
	if same, err := WithExchanges(e, nil); err != nil || string(same.Data) != string(e.Data) {
		t.Fatalf("no refs changed the event: %v", err)
	}

	for _, tc := range []struct {
		name string
		data string
	}{
		{"array", `[1]`},
		{"null", `null`},
		{"already", `{"exchanges":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := e
			bad.Data = json.RawMessage(tc.data)
			_, err := WithExchanges(bad, refs)
			if !errors.Is(err, ErrInvalidPayload) || errors.Is(err, ErrHasExchanges) != (tc.name == "already") {
				t.Fatalf("err = %v", err)
			}
		})
	}
	empty := e
	empty.Data = json.RawMessage(`{}`)
	got, err = WithExchanges(empty, refs)
	if err != nil || !json.Valid(got.Data) {
		t.Fatalf("empty object: %v %s", err, got.Data)
	}
}
