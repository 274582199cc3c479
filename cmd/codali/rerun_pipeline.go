package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// replayRun is what a rerun produced.
type replayRun struct {
	runID    string
	state    audit.State
	replayer *exchange.Replayer
}

// replayPipeline runs a new run of req on a private, temporary pipeline
// (an embedded JetStream server in a temporary directory, every service
// in-process) whose model providers all answer from recorded exchanges,
// and returns the new run's recorded state once it has ended. The project
// state starts as seeds. runPolicy, when set, is the policy document the
// recorded run ran under (options.policy): it is stored for the new run,
// which runs under it too.
// decided are the recorded run's parked calls: a call the new run parks
// on gets the decision recorded for it.
// wrapProvider, when set, wraps the replay provider (tests).
func replayPipeline(ctx context.Context, cfg *config.Config, getenv func(string) string, logOut io.Writer, req events.Requested, runPolicy []byte,
	recs []exchange.Record, decided []audit.Approval, seeds []projectSeed, timeout time.Duration, wrapProvider func(llm.Provider) llm.Provider) (replayRun, error) {
	dir, err := os.MkdirTemp("", "codali-rerun-")
	if err != nil {
		return replayRun{}, fmt.Errorf("could not create the rerun's directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	c := *cfg
	c.Workspace.Root = filepath.Join(dir, "workspaces")
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(dir, "jetstream")})
	if err != nil {
		return replayRun{}, err
	}
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL(), nats.Name("codali-rerun"))
	if err != nil {
		return replayRun{}, fmt.Errorf("could not connect to the rerun's server: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return replayRun{}, err
	}
	if err := bus.Provision(ctx, js, app.TopologyFor(&c, 1), nil); err != nil {
		return replayRun{}, err
	}
	for _, seed := range seeds {
		if seed.value == nil {
			continue
		}
		kv, err := js.KeyValue(ctx, events.BucketPMState)
		if err != nil {
			return replayRun{}, err
		}
		if _, err := kv.Put(ctx, seed.key, seed.value); err != nil {
			return replayRun{}, fmt.Errorf("could not seed the project state: %w", err)
		}
	}
	log, err := app.NewLogger(logOut, "warn")
	if err != nil {
		return replayRun{}, err
	}
	script, err := examples.HelloScript()
	if err != nil {
		return replayRun{}, err
	}
	deps, err := app.NewDeps(ctx, &c, js, log, time.Now, getenv, script)
	if err != nil {
		return replayRun{}, err
	}
	defer deps.Close()
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = deps.Tracing.Shutdown(sctx) // best effort: spans of a rerun
	}()
	out := replayRun{replayer: exchange.NewReplayer(recs, deps.Redactor.String)}
	var provider llm.Provider = out.replayer
	if wrapProvider != nil {
		provider = wrapProvider(provider)
	}
	deps.NewProvider = func(string, llm.ProviderConfig) (llm.Provider, error) { return provider, nil }
	_, metrics, err := app.NewRegistry()
	if err != nil {
		return replayRun{}, err
	}
	var comps []app.Component
	for _, n := range events.Services() {
		comps = append(comps, components()[n])
	}
	pctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- app.RunComponents(pctx, deps, comps, metrics, worker.NewHealth()) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			log.Warn("the rerun's pipeline stopped with an error", "err", err)
		}
	}()

	if out.runID, err = events.NewRunID(time.Now(), nil); err != nil {
		return out, err
	}
	if runPolicy != nil {
		digest, err := policystore.Put(ctx, js, out.runID, runPolicy)
		if err != nil {
			return out, err
		}
		req.Options.Policy = &events.PolicyRef{Digest: digest}
	}
	env, err := events.New(out.runID, events.KindRequested, 1, "codali/rerun", time.Now(), req)
	if err != nil {
		return out, err
	}
	cl := &client{nc: nc, js: js}
	if err := publishRequested(ctx, cl, env); err != nil {
		return out, err
	}
	decider := newRerunDecider(cl, decided)
	store, err := raostore.Open(ctx, js)
	if err != nil {
		return out, err
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-deadline.C:
			return out, fmt.Errorf("the rerun did not end within %s", timeout)
		case err := <-done:
			done <- err // for the deferred wait
			if err == nil {
				err = errors.New("no error")
			}
			return out, fmt.Errorf("the rerun's pipeline stopped before the run ended: %w", err)
		case <-tick.C:
		}
		st, ok, err := loadState(ctx, store, out.runID)
		if err != nil {
			return out, err
		}
		if ok && st.Terminal() {
			out.state = st
			return out, nil
		}
		if ok {
			if err := decider.decide(ctx, out.runID, &st); err != nil {
				return out, err
			}
		}
	}
}

// loadState replays a run's history into its state; ok is false while the
// run has no history yet.
func loadState(ctx context.Context, store *raostore.Store, runID string) (audit.State, bool, error) {
	evs, _, err := store.Load(ctx, runID)
	if err != nil {
		return audit.State{}, false, err
	}
	if len(evs) == 0 {
		return audit.State{}, false, nil
	}
	states, err := rao.States(evs)
	if err != nil {
		return audit.State{}, false, err
	}
	st, err := audit.DecodeState(runID, states[len(states)-1].Doc)
	if err != nil {
		return audit.State{}, false, fmt.Errorf("run %s: could not decode its state: %w", runID, err)
	}
	return st, true, nil
}
