package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
)

// TestRunHijackIsRefused is the run-hijack attack end to end: an agent
// watching requests publishes its own request on a victim's run id, as
// attempt 2 and as a second attempt 1 (fresh message ids, so no
// de-duplication), then a malformed request. The victim's `submit --wait` must end with its own
// request and change, and the history must record the refused requests.
func TestRunHijackIsRefused(t *testing.T) {
	p := startUp(t, fastConfig(t))
	nc, js := p.js(t)
	attackerRepo := helloRepo(t)
	const evilText = "attacker's request"
	evil := events.Requested{Request: evilText, Repo: events.RepoRef{Path: attackerRepo}}
	hijacked := make(chan string, 1)
	sub, err := nc.Subscribe(events.KindRequested.FilterSubject(), func(m *nats.Msg) {
		run, _, _ := events.ParseSubject(m.Subject)
		if !strings.Contains(string(m.Data), "victim's request") {
			return // the attacker's own publications
		}
		for i, attempt := range []int{2, 1} {
			e, err := events.New(run, events.KindRequested, attempt, "agent/evil", time.Now(), evil)
			if err != nil {
				t.Error(err)
				return
			}
			raw, _ := e.Encode(0)
			msg := nats.NewMsg(m.Subject)
			msg.Data = raw
			msg.Header.Set(events.HeaderMsgID, e.ID+"-evil-"+string(rune('a'+i)))
			if _, err := js.PublishMsg(context.Background(), msg); err != nil {
				t.Errorf("attacker publish: %v", err)
			}
		}
		// A malformed request on a claimed run must not end it either.
		garbage := nats.NewMsg(m.Subject)
		garbage.Data = []byte(`{"specversion": "1.0", "id": `)
		garbage.Header.Set(events.HeaderMsgID, run+"-evil-garbage")
		if _, err := js.PublishMsg(context.Background(), garbage); err != nil {
			t.Errorf("attacker publish: %v", err)
		}
		select {
		case hijacked <- run:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", "victim's request")
	var run string
	select {
	case run = <-hijacked:
	case <-time.After(time.Minute):
		t.Fatal("the attacker never saw the request")
	}
	if code != exitOK {
		t.Fatalf("victim's submit exited %d: %s %s\n%s", code, out, errOut, p.log.String())
	}
	env, v := decodeTerminal(t, out)
	if env.RunID() != run {
		t.Fatalf("attacked run %s, terminal of %s", run, env.RunID())
	}
	if v.Run.Request.Request != "victim's request" || v.Attempts != 2 {
		t.Fatalf("the victim's run ended with another request: %+v (attempts %d)", v.Run.Request, v.Attempts)
	}
	eventually(t, "the refusals recorded", func() bool {
		_, out, _ := p.run(t, "rao", "replay", run, "--json")
		return strings.Count(out, "agent/evil") >= 2 && strings.Contains(out, `"status": "passed"`)
	})
	_, state, _ := p.run(t, "rao", "replay", run, "--json")
	if strings.Contains(state, `"request": "`+evilText) {
		t.Fatalf("the attacker's request was recorded as the run's request:\n%s", state)
	}
	for _, want := range []string{"a run's request is attempt 1", "already has a different request"} {
		if !strings.Contains(state, want) {
			t.Errorf("history does not record %q:\n%s", want, state)
		}
	}
}

// TestSubmitRefusesATakenRunID: while a run's request is in the stream, a
// second request for the same run id is refused by the server.
func TestSubmitRefusesATakenRunID(t *testing.T) {
	ctx := context.Background()
	_, nc, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	cl := &client{nc: nc, js: js}
	mk := func(text string) events.Envelope {
		e, err := events.New("taken", events.KindRequested, 1, "agent/"+text, time.Now(), events.Requested{Request: text, Repo: events.RepoRef{Path: "/" + text}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if err := publishRequested(ctx, cl, mk("first")); err != nil {
		t.Fatal(err)
	}
	// The same message id: de-duplicated by the server, reported as taken.
	if err := publishRequested(ctx, cl, mk("second")); !errors.Is(err, ErrRunIDTaken) {
		t.Fatalf("second request with the same message id: %v, want ErrRunIDTaken", err)
	}
	// Another publisher got there first with its own message id.
	raw, err := mk("squatter").Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(events.KindRequested.Subject("other"))
	m.Data = []byte(strings.ReplaceAll(string(raw), "taken", "other"))
	m.Header.Set(events.HeaderMsgID, "squatter-id")
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	late, err := events.New("other", events.KindRequested, 1, "agent/late", time.Now(), events.Requested{Request: "late", Repo: events.RepoRef{Path: "/late"}})
	if err != nil {
		t.Fatal(err)
	}
	err = publishRequested(ctx, cl, late)
	if !errors.Is(err, ErrRunIDTaken) || !strings.Contains(err.Error(), "already has a request") {
		t.Fatalf("request for a taken run id: %v, want ErrRunIDTaken", err)
	}
}

// TestURLRunPassesWithItsClaim: a repository given by URL is pinned to
// the indexed commit for the later phases; the run still belongs to its
// request (the pin is not a change of request) and passes.
func TestURLRunPassesWithItsClaim(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(helloRepo(t))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	p := startUp(t, fastConfig(t))
	code, out, errOut := p.run(t, "submit", "--url", "file://"+src, "--ref", "main", "--wait", "--json", "--timeout", "2m", "url run")
	if code != exitOK {
		t.Fatalf("submit --url: %d %s %s\n%s", code, out, errOut, p.log.String())
	}
	_, v := decodeTerminal(t, out)
	if v.Run.Request.Repo.Ref != "main" || len(v.Run.Commit) != 40 {
		t.Fatalf("request %+v, pinned commit %q", v.Run.Request.Repo, v.Run.Commit)
	}
}
