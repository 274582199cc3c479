package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/progress"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPhasesPublishProgress: a run's phases publish their progress on core
// NATS, numbered in order per handling, and the run event stream does not
// keep it.
func TestPhasesPublishProgress(t *testing.T) {
	p := startUp(t, fastConfig(t))
	nc, js := p.js(t)
	ch := make(chan *nats.Msg, 4096)
	sub, err := nc.ChanSubscribe(progress.SubjectPrefix+".>", ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", "write done.txt")
	if code != exitOK {
		t.Fatalf("submit: %d %s %s", code, out, errOut)
	}
	env, _ := decodeTerminal(t, out)
	seqs := map[string]uint64{}
	var types []string
	eventually(t, "the last critic's phase end", func() bool {
		for {
			select {
			case m := <-ch:
				var msg progress.Message
				if err := json.Unmarshal(m.Data, &msg); err != nil {
					t.Fatalf("bad progress message: %v", err)
				}
				if m.Subject != progress.Subject(env.RunID(), msg.Phase) || msg.RunID != env.RunID() {
					t.Fatalf("message %+v on %s", msg, m.Subject)
				}
				if msg.Seq != seqs[msg.Handling]+1 {
					t.Fatalf("handling %s: seq %d after %d", msg.Handling, msg.Seq, seqs[msg.Handling])
				}
				seqs[msg.Handling] = msg.Seq
				types = append(types, msg.Phase+" "+msg.Type+" "+msg.Activity+" "+msg.Name)
			default:
				return strings.Contains(strings.Join(types, "\n"), "critic phase.end") && strings.Count(strings.Join(types, "\n"), "critic phase.end") == 2
			}
		}
	})
	all := strings.Join(types, "\n")
	for _, want := range []string{"librarian phase.start", "architect activity.start model", "builder activity.start tool write_file", "builder activity.end tool write_file", "critic activity.start check done", "critic activity.end check done"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in:\n%s", want, all)
		}
	}
	st, err := js.Stream(context.Background(), events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background(), jetstream.WithSubjectFilter(progress.SubjectPrefix+".>"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.State.Subjects) != 0 {
		t.Fatalf("the run event stream kept progress: %v", info.State.Subjects)
	}
	for _, s := range info.Config.Subjects {
		if strings.HasPrefix(progress.SubjectPrefix, strings.TrimSuffix(s, ">")) {
			t.Fatalf("stream subject %s captures progress", s)
		}
	}
}
