package critic_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/services/critic"
)

// builtWith re-encodes a built event with the builder's cognition record.
func builtWith(t *testing.T, in events.Envelope, cog *events.BuildCognition) events.Envelope {
	t.Helper()
	var bd events.BuiltData
	if err := events.DecodeData(in, &bd); err != nil {
		t.Fatal(err)
	}
	bd.Cognition = cog
	data, err := json.Marshal(bd)
	if err != nil {
		t.Fatal(err)
	}
	in.Data = data
	return in
}

// An attempt the builder ended because it was spinning fails (and is
// retried) without running checks, even though it changed something.
func TestSpinningAttemptIsRetried(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	d := newDeps(t, `{}`)
	in := built(t, "spin", 1, repo, 3, good, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil)
	in = builtWith(t, in, &events.BuildCognition{Stopped: events.StopSpinning, StopDetail: "read_file:x.go repeated 5 times without progress"})
	outs, err := handler(t, d)(testCtx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	var rd events.RetryData
	if err := json.Unmarshal(output(t, outs, in, events.KindRetry, 2), &rd); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rd.Reason, "stopped early (spinning)") || !strings.Contains(rd.Reason, "read_file:x.go") || len(rd.Checks) != 0 {
		t.Errorf("retry reason %q, checks %+v", rd.Reason, rd.Checks)
	}
}

// Help-seeking raised by the builder is reported in the verdict without
// lowering its integrity.
func TestHelpSeekingInVerdict(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	d := newDeps(t, `{}`)
	in := built(t, "help", 1, repo, 3, good, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil)
	in = builtWith(t, in, &events.BuildCognition{HelpSeeking: true, MaxConsecutiveFailures: 3})
	outs, err := handler(t, d)(testCtx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	var vd events.VerdictData
	if err := json.Unmarshal(output(t, outs, in, events.KindPassed, 1), &vd); err != nil {
		t.Fatal(err)
	}
	if vd.Integrity != events.IntegrityGreen || len(vd.Warnings) != 1 || !strings.Contains(vd.Warnings[0], "help-seeking: the builder had 3 consecutive failed tool calls") {
		t.Errorf("verdict integrity %s warnings %v", vd.Integrity, vd.Warnings)
	}
}

// High anxiety at the end of the build adds the repository's extra checks
// (go vet for a Go module); a calm build gets only the plan's checks.
func TestAnxiousBuildGetsExtraChecks(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	for _, anxious := range []bool{false, true} {
		d := newDeps(t, `{}`)
		in := built(t, "anx", 1, repo, 3, good, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil)
		in = builtWith(t, in, &events.BuildCognition{Heuristics: afs.Heuristics{ExtraChecks: anxious, ConfirmDestructive: anxious}})
		outs, err := handler(t, d)(testCtx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		var vd events.VerdictData
		if err := json.Unmarshal(output(t, outs, in, events.KindPassed, 1), &vd); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range vd.Checks {
			names = append(names, c.Name)
			if !c.OK {
				t.Errorf("check %s failed: %s", c.Name, c.Output)
			}
		}
		want := "ok"
		if anxious {
			want = "ok,extra: go vet"
		}
		if strings.Join(names, ",") != want {
			t.Errorf("anxious=%v: checks %v, want %s", anxious, names, want)
		}
	}
}

// confidentRecord is a builder record of reads (one per path; "!" before
// a path makes that read fail) folded into a session, with the
// heuristics the session ends with.
func confidentRecord(t *testing.T, paths ...string) *events.BuildCognition {
	t.Helper()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := afs.NewSession(afs.SessionConfig{SessionID: "fast.a1", Now: func() time.Time { return at }})
	for _, p := range paths {
		ok := !strings.HasPrefix(p, "!")
		in := json.RawMessage(`{"path":"` + strings.TrimPrefix(p, "!") + `"}`)
		_, id := s.BeforeTool(afs.Files{}, afs.Call{Tool: "read_file", Paths: []string{p}}, in)
		s.AfterTool(id, "read_file", in, afs.Outcome{Success: ok})
	}
	return &events.BuildCognition{Entries: s.Entries(), Heuristics: s.Emotions().Heuristics()}
}

// High confidence with low anxiety, derived from the recorded entries,
// is the fast path: a clean, passing attempt skips the model review (no
// model call). Any failed call, low confidence, or a record whose
// summary claims the fast path while its entries do not show it gets the
// review.
func TestConfidentCleanBuildSkipsTheReview(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	reads := []string{"a.go", "b.go", "c.go", "d.go", "e.go", "f.go", "g.go", "h.go"}
	// A binary file (here one the plan declares it creates) counts no
	// lines (git's numstat has none for it), so however large, it would
	// fit any line bound.
	blob := "\x00" + strings.Repeat("not reviewed\n", 300)
	binary := change(t, repo, map[string]string{"greet.go": goodGreet, "notes.txt": blob})
	if binary.Added+binary.Removed > 40 {
		t.Fatalf("a binary file counted %d lines: the case would not show the bound can be slipped", binary.Added+binary.Removed)
	}
	claimed := confidentRecord(t, "a.go", "b.go")
	claimed.Heuristics.FastPath = true
	cases := []struct {
		name string
		cog  *events.BuildCognition
		fast bool
		// critic is the critic's configuration.
		critic string
		// ch is the change (nil: good).
		ch *events.Change
	}{
		{"confident and calm", confidentRecord(t, reads...), true, `{}`, nil},
		{"confident and calm, alwaysReview", confidentRecord(t, reads...), false, `{"alwaysReview":true}`, nil},
		// Confidence farmed with harmless reads does not let a change
		// larger than fastPathMaxLines go unreviewed.
		{"confident and calm, change over fastPathMaxLines", confidentRecord(t, reads...), false, `{"fastPathMaxLines":1}`, nil},
		// Nor does a change with a binary file, which counts no lines.
		{"confident and calm, a binary file", confidentRecord(t, reads...), false, `{}`, &binary},
		{"a failed call", confidentRecord(t, append([]string{"!x.go"}, reads...)...), false, `{}`, nil},
		{"not confident", confidentRecord(t, "a.go", "b.go"), false, `{}`, nil},
		{"claimed, not recorded", claimed, false, `{}`, nil},
		{"no record", nil, false, `{}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cog != nil && tc.name == "a failed call" && !tc.cog.Heuristics.FastPath {
				t.Fatal("the failing record should still be confident: the test would not show that failures matter")
			}
			cfg := `{"routing":{"critic":{"provider":"scripted","model":"judge"}},"critic":` + tc.critic + `}`
			d := apptest.Deps(t, cfg, apptest.Options{Getenv: getenv, PolicyJSON: testPolicy,
				Script: reviewScript(t, `{"status":"pass","reasons":[],"retryable":false}`)})
			ch := good
			if tc.ch != nil {
				ch = *tc.ch
			}
			in := built(t, "fast", 1, repo, 3, ch, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil)
			in = builtWith(t, in, tc.cog)
			var vd events.VerdictData
			if err := json.Unmarshal(output(t, mustHandle(t, handler(t, d), in), in, events.KindPassed, 1), &vd); err != nil {
				t.Fatal(err)
			}
			skipped := vd.Review != nil && vd.Review.Status == events.ReviewSkipped && vd.Review.Skipped == critic.FastPathSkip
			if skipped != tc.fast || (len(vd.Usage) == 0) != tc.fast {
				t.Errorf("fast=%v: review %+v usage %+v", tc.fast, vd.Review, vd.Usage)
			}
		})
	}
}

// The extra checks follow from the recorded entries: five failed calls
// make the attempt anxious even when the record's summary says otherwise.
func TestRecordedFailuresGetExtraChecks(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	cog := confidentRecord(t, "!a.go", "!b.go", "!c.go", "!d.go", "!e.go")
	cog.Heuristics = afs.Heuristics{}
	d := newDeps(t, `{}`)
	in := builtWith(t, built(t, "anx2", 1, repo, 3, good, []events.VerifyCommand{verify("ok", "grep", "-q", "Greet", "greet.go")}, nil), cog)
	var vd events.VerdictData
	if err := json.Unmarshal(output(t, mustHandle(t, handler(t, d), in), in, events.KindPassed, 1), &vd); err != nil {
		t.Fatal(err)
	}
	if len(vd.Checks) != 2 || vd.Checks[1].Name != critic.ExtraCheckPrefix+"go vet" {
		t.Errorf("checks %+v", vd.Checks)
	}
}
