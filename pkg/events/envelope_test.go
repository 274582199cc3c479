package events_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func mustNew(t *testing.T, run string, k events.Kind, attempt int, data any) events.Envelope {
	t.Helper()
	e, err := events.New(run, k, attempt, "agent/test", t0, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEnvelopeRoundTrip(t *testing.T) {
	req := events.Requested{Request: "add a flag", Repo: events.RepoRef{URL: "https://example.com/r.git", Ref: "main"},
		Options: events.RunOptions{MaxRetries: intp(2), Labels: map[string]string{"team": "a"}}}
	e := mustNew(t, "01jabc", events.KindRequested, 1, req)
	e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	raw, err := e.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := events.Decoder{}.Decode("codali.run.01jabc.requested", raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "01jabc.requested.1" || got.Type != "dev.codali.run.requested" || got.TraceParent != e.TraceParent || !got.Time.Equal(t0) {
		t.Fatalf("decoded %+v", got)
	}
	var back events.Requested
	if err := events.DecodeData(got, &back); err != nil {
		t.Fatal(err)
	}
	if back.Repo != req.Repo || *back.Options.MaxRetries != 2 || back.Options.Labels["team"] != "a" {
		t.Fatalf("data %+v", back)
	}
	// The wire form uses the CloudEvents attribute names.
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"specversion", "id", "source", "type", "subject", "time", "datacontenttype", "attempt", "traceparent", "data"} {
		if _, ok := m[k]; !ok {
			t.Errorf("attribute %q missing from %s", k, raw)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	good := mustNew(t, "r1", events.KindPlan, 2, map[string]any{"plan": 1})
	enc := func(mut func(m map[string]any)) []byte {
		raw, _ := json.Marshal(good)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		mut(m)
		out, _ := json.Marshal(m)
		return out
	}
	cases := []struct {
		name    string
		subject string
		msg     []byte
		max     int
		want    error
	}{
		{"not json", "codali.run.r1.plan", []byte("nope"), 0, events.ErrMalformedJSON},
		{"trailing data", "codali.run.r1.plan", append(enc(func(map[string]any) {}), []byte(" {}")...), 0, events.ErrMalformedJSON},
		{"unknown specversion", "codali.run.r1.plan", enc(func(m map[string]any) { m["specversion"] = "0.3" }), 0, events.ErrSpecVersion},
		{"missing specversion", "codali.run.r1.plan", enc(func(m map[string]any) { delete(m, "specversion") }), 0, events.ErrSpecVersion},
		{"missing id", "codali.run.r1.plan", enc(func(m map[string]any) { delete(m, "id") }), 0, events.ErrMissingAttribute},
		{"missing type", "codali.run.r1.plan", enc(func(m map[string]any) { m["type"] = "" }), 0, events.ErrMissingAttribute},
		{"missing source", "codali.run.r1.plan", enc(func(m map[string]any) { delete(m, "source") }), 0, events.ErrMissingAttribute},
		{"unknown type", "codali.run.r1.plan", enc(func(m map[string]any) { m["type"] = "dev.codali.run.bogus" }), 0, events.ErrUnknownKind},
		{"foreign type", "codali.run.r1.plan", enc(func(m map[string]any) { m["type"] = "com.example.x" }), 0, events.ErrUnknownKind},
		{"run id differs from subject", "codali.run.r2.plan", enc(func(map[string]any) {}), 0, events.ErrSubjectMismatch},
		{"kind differs from subject", "codali.run.r1.built", enc(func(map[string]any) {}), 0, events.ErrSubjectMismatch},
		{"attempt zero", "codali.run.r1.plan", enc(func(m map[string]any) { m["attempt"] = 0 }), 0, events.ErrBadAttempt},
		{"no data", "codali.run.r1.plan", enc(func(m map[string]any) { delete(m, "data") }), 0, events.ErrInvalidPayload},
		{"wrong content type", "codali.run.r1.plan", enc(func(m map[string]any) { m["datacontenttype"] = "text/xml" }), 0, events.ErrInvalidPayload},
		{"oversize default", "codali.run.r1.plan", bytes.Repeat([]byte{' '}, events.DefaultMaxEventBytes+1), 0, events.ErrTooLarge},
		{"oversize configured", "codali.run.r1.plan", enc(func(map[string]any) {}), 100, events.ErrTooLarge},
		{"bad subject shape", "codali.run.r1", enc(func(map[string]any) {}), 0, events.ErrBadSubject},
		{"bad run id in subject", "codali.run.r~1.plan", enc(func(map[string]any) {}), 0, events.ErrBadRunID},
		{"id not deterministic", "codali.run.r1.plan", enc(func(m map[string]any) { m["id"] = "7f9c-uuid" }), 0, events.ErrSubjectMismatch},
		{"id of another attempt", "codali.run.r1.plan", enc(func(m map[string]any) { m["id"] = "r1.plan.1" }), 0, events.ErrSubjectMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := events.Decoder{MaxBytes: tc.max}.Decode(tc.subject, tc.msg)
			if !errors.Is(err, tc.want) || !errors.Is(err, events.ErrInvalidEvent) {
				t.Fatalf("err = %v, want %v and ErrInvalidEvent", err, tc.want)
			}
			var de *events.DecodeError
			if !errors.As(err, &de) || de.Subject != tc.subject {
				t.Fatalf("not a DecodeError with the subject: %v", err)
			}
		})
	}
}

func TestDecodeErrorCarriesRunID(t *testing.T) {
	_, err := events.Decoder{}.Decode("codali.run.abc.requested", []byte("{"))
	var de *events.DecodeError
	if !errors.As(err, &de) || de.RunID != "abc" {
		t.Fatalf("err = %#v", err)
	}
}

func TestEncodeRefusesInvalidOrOversize(t *testing.T) {
	e := mustNew(t, "r", events.KindBuilt, 1, map[string]string{"x": strings.Repeat("y", 2000)})
	if _, err := e.Encode(1024); !errors.Is(err, events.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	e.SpecVersion = "2.0"
	if _, err := e.Encode(0); !errors.Is(err, events.ErrSpecVersion) {
		t.Fatalf("err = %v", err)
	}
	if _, err := events.New("bad.id", events.KindBuilt, 1, "s", t0, 1); !errors.Is(err, events.ErrBadRunID) {
		t.Fatalf("err = %v", err)
	}
	if _, err := events.New("ok", events.KindBuilt, 0, "s", t0, 1); !errors.Is(err, events.ErrBadAttempt) {
		t.Fatalf("err = %v", err)
	}
}

func TestMsgIDAndSubjects(t *testing.T) {
	if got := events.MsgID("run9", events.KindRetry, 3); got != "run9.retry.3" {
		t.Fatal(got)
	}
	if got := events.KindPassed.Subject("run9"); got != "codali.run.run9.passed" {
		t.Fatal(got)
	}
	run, k, err := events.ParseSubject("codali.run.run9.built")
	if err != nil || run != "run9" || k != events.KindBuilt {
		t.Fatal(run, k, err)
	}
	for _, s := range events.Services() {
		if len(events.InputSubjects(s)) == 0 {
			t.Errorf("service %s has no input subjects", s)
		}
	}
	if events.InputSubjects("nope") != nil {
		t.Fatal("unknown service has inputs")
	}
}

func TestNewRunID(t *testing.T) {
	a, err := events.NewRunID(t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := events.NewRunID(t0.Add(time.Millisecond), nil)
	if len(a) != 26 || events.ValidateRunID(a) != nil || a >= b {
		t.Fatalf("ids %q %q not valid and time-sortable", a, b)
	}
	if _, err := events.NewRunID(t0, bytes.NewReader(nil)); err == nil {
		t.Fatal("empty random source should fail")
	}
}

func TestRequestedValidate(t *testing.T) {
	cases := []struct {
		name string
		req  events.Requested
		want string
	}{
		{"ok path", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a"}}, ""},
		{"ok url", events.Requested{Request: "x", Repo: events.RepoRef{URL: "file:///a", Ref: "main"}}, ""},
		{"empty request", events.Requested{Request: "  ", Repo: events.RepoRef{Path: "/a"}}, "request"},
		{"missing repo", events.Requested{Request: "x"}, "one of path or url"},
		{"both", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a", URL: "u"}}, "not both"},
		{"relative path", events.Requested{Request: "x", Repo: events.RepoRef{Path: "a"}}, "absolute"},
		{"option injection", events.Requested{Request: "x", Repo: events.RepoRef{URL: "u", Ref: "--upload-pack=x"}}, "may not start"},
		{"retries", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a"}, Options: events.RunOptions{MaxRetries: intp(99)}}, "max_retries"},
		{"zero retries", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a"}, Options: events.RunOptions{MaxRetries: intp(0)}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFailedCarriesRun(t *testing.T) {
	in := mustNew(t, "rr", events.KindRequested, 1, events.Requested{Request: "fix", Repo: events.RepoRef{Path: "/p"}})
	in.TraceParent = "tp"
	f, err := events.Failed(in, "rr", "librarian", "boom", 1, "codali/librarian", func() time.Time { return t0 })
	if err != nil {
		t.Fatal(err)
	}
	var v events.VerdictData
	if err := events.DecodeData(f, &v); err != nil {
		t.Fatal(err)
	}
	if f.ID != "rr.failed.1" || f.TraceParent != "tp" || v.Run.Request.Request != "fix" || v.Integrity != events.IntegrityRed {
		t.Fatalf("%+v %+v", f, v)
	}
}

func intp(n int) *int { return &n }

func TestFitsAndGateCounts(t *testing.T) {
	e := mustNew(t, "r", events.KindBuilt, 1, map[string]string{"x": strings.Repeat("y", 3000)})
	if !e.Fits(events.DefaultMaxEventBytes) || e.Fits(2048) {
		t.Fatal("Fits does not follow the encoded size")
	}
	tools := []events.ToolExecution{
		{Gate: events.GateDecision{Blocked: true}},
		{Gate: events.GateDecision{Warnings: []string{"a", "b"}}},
		{Gate: events.GateDecision{Stage: events.GateStageArguments}},
	}
	if b, w := events.GateCounts(tools); b != 1 || w != 2 {
		t.Fatalf("GateCounts = %d, %d", b, w)
	}
}
