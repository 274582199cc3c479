package main

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natsauth/natsauthtest"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPipelineRunsWithLeastPrivilege runs the whole pipeline on a server
// whose users are generated from natsauth: `codali provision` as the
// provisioner, each service as its own identity without provisioning
// rights, `codali submit --wait` as the cli user. The run must pass with
// no permission violation anywhere: the allow lists are enough, not only
// narrow.
func TestPipelineRunsWithLeastPrivilege(t *testing.T) {
	url, pw := natsauthtest.Start(t)
	cfgPath := fastConfig(t)

	run := func(args ...string) (int, string, string) {
		out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: func(string) string { return "" }}
		return c.main(context.Background(), args), out.String(), errOut.String()
	}
	if code, out, errOut := run("provision", "--nats", url, "--user", natsauth.Provisioner, "--password", pw[natsauth.Provisioner], "--config", cfgPath); code != exitOK {
		t.Fatalf("provision: %d %s %s", code, out, errOut)
	}

	var mu sync.Mutex
	var violations []string
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace.Root = t.TempDir()
	script, err := examples.HelloScript()
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range events.Services() {
		// As pkg/app connects a service: replies to its own inboxes.
		nc, err := nats.Connect(url, nats.UserInfo(svc, pw[svc]), nats.CustomInboxPrefix(natsauth.InboxPrefix(svc)), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			mu.Lock()
			violations = append(violations, svc+": "+err.Error())
			mu.Unlock()
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		d, err := app.NewDeps(ctx, cfg, js, slog.New(slog.DiscardHandler), time.Now, os.Getenv, script)
		if err != nil {
			t.Fatalf("%s: %v", svc, err)
		}
		_, metrics, err := app.NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.Close()
			if err := app.RunComponents(ctx, d, []app.Component{components()[svc]}, metrics, worker.NewHealth()); err != nil {
				t.Errorf("%s stopped: %v", svc, err)
			}
		}()
	}
	code, out, errOut := run("submit", "--nats", url, "--user", natsauth.CLI, "--password", pw[natsauth.CLI],
		"--repo", helloRepo(t), "--wait", "--json", "--timeout", "2m", "least privilege")
	if code != exitOK {
		t.Fatalf("submit as cli: %d %s %s (violations %v)", code, out, errOut, violations)
	}
	_, v := decodeTerminal(t, out)
	if v.Status != events.StatusPassed {
		t.Fatalf("verdict %+v", v)
	}
	eventually(t, "the run recorded", func() bool {
		code, out, _ := run("runs", "--nats", url, "--user", natsauth.CLI, "--password", pw[natsauth.CLI], "--json")
		return code == exitOK && strings.Contains(out, `"status": "passed"`)
	})
	mu.Lock()
	defer mu.Unlock()
	if len(violations) > 0 {
		t.Fatalf("permission violations while running the pipeline:\n%s", strings.Join(violations, "\n"))
	}
}
