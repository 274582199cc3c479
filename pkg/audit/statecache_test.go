package audit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

// secretRunEvents is runEvents with secrets in the request and in a tool
// call's arguments, and a second, different request for the run (refused).
func secretRunEvents(t *testing.T, run string) []events.Envelope {
	t.Helper()
	evs := runEvents(t, run, policy.Default())
	req := testRun("hello").Request
	req.Request = "use key AKIAIOSFODNN7EXAMPLE"
	evs[0] = envelope(t, run, events.KindRequested, 1, "agent/test", req)
	var built events.BuiltData
	if err := events.DecodeData(evs[3], &built); err != nil {
		t.Fatal(err)
	}
	built.Tools = append(built.Tools, gatedCall(t, policy.Default(), 3,
		policy.ToolCall{Tool: "run_command", Command: []string{"mysql", "-u", "root", "--password=hunter2hunter2"}}))
	evs[3] = envelope(t, run, events.KindBuilt, 1, "codali/builder", built)
	other := testRun("hello").Request
	other.Request = "something else"
	second := envelope(t, run, events.KindRequested, 1, "agent/other", other)
	return append(evs[:2], append([]events.Envelope{second}, evs[2:]...)...)
}

// TestCachedStateRecordsTheSameHistory: a recorder that keeps each run's
// state between events stores the same bytes as recorders that decode the
// state from the history at every event (a new recorder per event), for a
// plain run and for one whose state redaction changes (secrets) with a
// refused event; the states they return are the same JSON value.
func TestCachedStateRecordsTheSameHistory(t *testing.T) {
	for name, evs := range map[string]func(*testing.T, string) []events.Envelope{
		"plain":  func(t *testing.T, run string) []events.Envelope { return runEvents(t, run, policy.Default()) },
		"secret": secretRunEvents,
	} {
		t.Run(name, func(t *testing.T) {
			warmSrv, coldSrv := startServer(t), startServer(t)
			warmStore, coldStore := warmSrv.store(t), coldSrv.store(t)
			warm := newRecorder(t, warmStore, 3, 0)
			clock := tick()
			for i, e := range evs(t, "same") {
				steps, err := audit.Fold(e)
				if err != nil {
					t.Fatal(err)
				}
				ws, _ := record(t, warm, "same", steps)
				cold := newRecorder(t, coldStore, 3, 0)
				cold.Now = clock
				cs, _ := record(t, cold, "same", steps)
				a, b := canonical(t, mustJSON(t, ws)), canonical(t, mustJSON(t, cs))
				if string(a) != string(b) {
					t.Fatalf("event %d: states differ:\nkept:    %s\ndecoded: %s", i, a, b)
				}
			}
			wh, ch := load(t, warmStore, "same"), load(t, coldStore, "same")
			if len(wh) != len(ch) {
				t.Fatalf("%d events kept, %d decoded", len(wh), len(ch))
			}
			for i := range wh {
				a, err := rao.Encode(wh[i])
				if err != nil {
					t.Fatal(err)
				}
				b, err := rao.Encode(ch[i])
				if err != nil {
					t.Fatal(err)
				}
				if string(a) != string(b) {
					t.Errorf("event %d differs:\nkept:    %s\ndecoded: %s", i, a, b)
				}
			}
		})
	}
}

// TestCachedStateIsTheRedactedOne: after a state that redaction changed,
// the next event starts from the redacted state, as recorded: the state a
// record returns holds no secret of an earlier event.
func TestCachedStateIsTheRedactedOne(t *testing.T) {
	srv := startServer(t)
	rec := newRecorder(t, srv.store(t), 10, 0)
	evs := secretRunEvents(t, "redacted")
	var st audit.State
	for _, e := range evs[:2] {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		st, _ = record(t, rec, "redacted", steps)
	}
	if st.Request == nil || strings.Contains(st.Request.Request, "AKIA") {
		t.Fatalf("the state after the request kept its secret: %+v", st.Request)
	}
}

// TestCachedStateAfterFailedAppend: a record whose append fails leaves no
// state behind: the mutation of the failed event is not in the state the
// next event starts from.
func TestCachedStateAfterFailedAppend(t *testing.T) {
	srv := startServer(t)
	fs := &failingStore{Store: srv.store(t)}
	rec := newRecorder(t, fs, 10, 0)
	steps := allSteps(t, runEvents(t, "failed", policy.Default()))
	for _, s := range steps[:2] {
		record(t, rec, "failed", s)
	}
	fs.append = errors.New("boom")
	if _, _, err := rec.Record(testCtx(t), "failed", steps[2]); err == nil {
		t.Fatal("Record succeeded with a failing append")
	}
	fs.append = nil
	st, h := record(t, rec, "failed", steps[3])
	if st.HasCause(steps[2][0].Cause) || len(st.Attempts) != 1 || st.Attempts[0].Plan != nil {
		t.Fatalf("the failed plan event is in the state: causes %v, attempts %+v", st.Causes, st.Attempts)
	}
	if rep := rao.Verify(h); !rep.OK() {
		t.Fatalf("history broken: %v", rep)
	}
}

// TestCachedStateAfterConflict: when another writer appended to the run,
// the record conflicts, and the retry starts from the stored state (with
// the other writer's event), not from the state kept before.
func TestCachedStateAfterConflict(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	rec := newRecorder(t, store, 10, 0)
	steps := allSteps(t, runEvents(t, "conflict", policy.Default()))
	for _, s := range steps[:3] {
		record(t, rec, "conflict", s)
	}
	other := newRecorder(t, srv.store(t), 10, 0)
	record(t, other, "conflict", steps[3])
	if _, _, err := rec.Record(testCtx(t), "conflict", steps[4]); !errors.Is(err, raostore.ErrConflict) {
		t.Fatalf("Record after another writer's append: %v, want a conflict", err)
	}
	st, _ := record(t, rec, "conflict", steps[4])
	for _, s := range steps[3] {
		if !st.HasCause(s.Cause) {
			t.Errorf("the state misses %s, appended by the other writer", s.Cause)
		}
	}
	if len(st.Attempts) == 0 || st.Attempts[0].Change == nil {
		t.Errorf("the other writer's change is not in the state: %+v", st.Attempts)
	}
	checkHistory(t, load(t, store, "conflict"), causesOf(steps[:5]))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestSummaryIsOfTheRecordedState: the run summary is made from the state
// as the history holds it, redacted, also at the event that brought the
// secret (the request); its head is the history's.
func TestSummaryIsOfTheRecordedState(t *testing.T) {
	srv := startServer(t)
	rec := newRecorder(t, srv.store(t), 10, 0)
	evs := secretRunEvents(t, "summary")
	for i, e := range evs[:2] {
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		c, err := rec.RecordChange(testCtx(t), "summary", steps)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Summary()
		if strings.Contains(s.Request, "AKIA") || !strings.Contains(s.Request, "[REDACTED") {
			t.Errorf("event %d: the summary's request is %q, want it redacted", i, s.Request)
		}
		want := audit.SummaryOf(c.State, c.History)
		if s.LastSeq != want.LastSeq || s.HeadHash != want.HeadHash || s.Status != want.Status || s.Events != want.Events {
			t.Errorf("event %d: summary %+v, want the history's position %+v", i, s, want)
		}
	}
}
