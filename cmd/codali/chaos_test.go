package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// The chaos suite runs the pipeline on a three-server JetStream cluster
// (in-process nats-servers with routes on loopback, every stream and
// bucket R3) and stops servers while runs are in flight. The fast
// scenarios run with `make test`; the others need CODALI_CHAOS=1 (`make
// chaos`).

// longChaos skips a scenario unless the long chaos suite was asked for.
func longChaos(t *testing.T) {
	t.Helper()
	if os.Getenv("CODALI_CHAOS") == "" {
		t.Skip("long chaos scenario: run with CODALI_CHAOS=1 (make chaos)")
	}
}

// clusterPipeline starts a 3-server cluster and `codali up --nats <all
// three> --replicas 3` with every worker.
func clusterPipeline(t *testing.T) (*natstest.Cluster, *pipeline) {
	t.Helper()
	cl := natstest.StartCluster(t, 3)
	p := startUpWith(t, upOptions{nats: cl.URLs(), replicas: 3, workers: "all", config: fastConfig(t)})
	return cl, p
}

// chaosResult is what a batch of runs under a fault came to.
type chaosResult struct {
	// recovered is how long after the fault's reference time (the fault
	// itself, or the new leader's election) the last run that was in
	// flight at the fault ended.
	recovered time.Duration
	// inFlight is how many runs had started and not ended at the fault.
	inFlight int
	// longest is the longest a run took from submit to its end.
	longest time.Duration
}

// chaosLoad is a batch of runs and the fault applied to it.
type chaosLoad struct {
	// runs are submitted with at most inFlight at once (0 = all at once).
	runs, inFlight int
	// faultAfter is how many runs must have ended before the fault;
	// with 0 the fault comes once every run in flight is stored.
	faultAfter int
	// fault applies the fault and returns the time recovery is measured
	// from; nil runs the batch without a fault.
	fault func() time.Time
}

// runThrough submits n runs at once, applies fault once the runs are in
// flight, and checks that every run passes with exactly one terminal event
// and a history that verifies.
func runThrough(t *testing.T, p *pipeline, n int, fault func()) chaosResult {
	t.Helper()
	l := chaosLoad{runs: n}
	if fault != nil {
		l.fault = func() time.Time { at := time.Now(); fault(); return at }
	}
	return runLoad(t, p, l)
}

// runLoad submits l.runs runs, l.inFlight at a time, applies l.fault
// while they are in flight, and checks that every run passes with exactly
// one stored terminal event and a history that verifies.
func runLoad(t *testing.T, p *pipeline, l chaosLoad) chaosResult {
	t.Helper()
	_, js := p.js(t)
	count := terminals(t, js)
	repo := helloRepo(t)
	inFlight := l.inFlight
	if inFlight <= 0 {
		inFlight = l.runs
	}
	slots := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ended := 0
	runIDs := make([]string, l.runs)
	errs := make([]string, l.runs)
	started := make([]time.Time, l.runs)
	finished := make([]time.Time, l.runs)
	for i := range l.runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			mu.Lock()
			started[i] = time.Now()
			mu.Unlock()
			code, out, errOut := p.run(t, "submit", "--repo", repo, "--wait", "--json", "--timeout", "4m", fmt.Sprintf("chaos run %d", i))
			mu.Lock()
			finished[i] = time.Now()
			ended++
			mu.Unlock()
			if code != exitOK {
				errs[i] = fmt.Sprintf("run %d exited %d: %s %s", i, code, out, errOut)
				return
			}
			env, _ := decodeTerminal(t, out)
			runIDs[i] = env.RunID()
		}()
	}
	var faulted, reference time.Time
	if l.fault != nil {
		eventually(t, "runs in flight", func() bool {
			if l.faultAfter > 0 {
				mu.Lock()
				defer mu.Unlock()
				return ended >= l.faultAfter
			}
			s, err := js.Stream(context.Background(), events.StreamRAO)
			return err == nil && s.CachedInfo().State.Msgs >= uint64(l.runs)
		})
		faulted = time.Now()
		reference = l.fault()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatalf("%s\nservices:\n%s", e, p.log.String())
		}
	}
	eventually(t, "every terminal event counted", func() bool {
		c := count()
		for _, id := range runIDs {
			if c[id] == 0 {
				return false
			}
		}
		return true
	})
	var res chaosResult
	c := count()
	for i, id := range runIDs {
		if got := c[id]; got != 1 {
			t.Errorf("run %s: %d terminal events, want exactly 1", id, got)
		}
		res.longest = max(res.longest, finished[i].Sub(started[i]))
		if l.fault != nil && started[i].Before(faulted) && finished[i].After(faulted) {
			res.inFlight++
			res.recovered = max(res.recovered, finished[i].Sub(reference))
		}
	}
	for _, id := range runIDs {
		verifies(t, p, id)
	}
	return res
}

// verifies checks (for up to a minute, while the recorder catches up)
// that the run's audit history verifies.
func verifies(t *testing.T, p *pipeline, runID string) {
	t.Helper()
	var last string
	deadline := time.Now().Add(time.Minute)
	for {
		code, out, errOut := p.run(t, "rao", "verify", runID)
		if code == exitOK {
			return
		}
		last = fmt.Sprintf("exit %d: %s %s", code, out, errOut)
		if time.Now().After(deadline) {
			t.Fatalf("history of %s does not verify: %s\nservices:\n%s", runID, last, p.log.String())
		}
		time.Sleep(200 * time.Millisecond) // poll interval
	}
}

// leaderOf returns the member leading stream (or, when consumer is set,
// that consumer), waiting until it has one.
func leaderOf(t *testing.T, cl *natstest.Cluster, js jetstream.JetStream, stream, consumer string) int {
	t.Helper()
	leader := -1
	eventually(t, "a leader of "+stream+" "+consumer, func() bool {
		if consumer == "" {
			leader = cl.StreamLeader(context.Background(), js, stream)
		} else {
			leader = cl.ConsumerLeader(context.Background(), js, stream, consumer)
		}
		return leader >= 0
	})
	return leader
}

// killLeaderScenario stops the leader of stream/consumer while runs are in
// flight and checks the runs; then restarts the server while other runs
// are in flight, and checks those and runs after it rejoined.
func killLeaderScenario(t *testing.T, stream, consumer string, n int) {
	cl, p := clusterPipeline(t)
	_, js := p.js(t)
	victim := -1
	res := runThrough(t, p, n, func() {
		victim = leaderOf(t, cl, js, stream, consumer)
		t.Logf("stopping %s, leader of %s %s", cl.Name(victim), stream, consumer)
		cl.Stop(victim)
	})
	t.Logf("every run ended %s after the leader stopped", res.recovered.Round(time.Millisecond))
	if os.Getenv("CODALI_CHAOS") != "" && res.recovered > 90*time.Second {
		// The target is 60 s after the new leader's election; elections
		// take a few seconds, and a loaded machine more.
		t.Errorf("runs took %s to end after the leader stopped", res.recovered)
	}
	// The stopped server rejoins while new runs are in flight.
	runThrough(t, p, 4, func() { cl.Restart(t, victim) })
	cl.WaitJetStream(t)
	runThrough(t, p, 2, nil)
}

func TestChaosKillWorkStreamLeader(t *testing.T) {
	killLeaderScenario(t, events.StreamWork, "", 6)
}

func TestChaosKillRAOStreamLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, events.StreamRAO, "", 12)
}

func TestChaosKillRunsBucketLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, "KV_"+events.BucketRuns, "", 12)
}

func TestChaosKillProjectStateBucketLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, "KV_"+events.BucketPMState, "", 12)
}

func TestChaosKillArtifactsBucketLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, "OBJ_"+events.BucketArtifacts, "", 12)
}

func TestChaosKillBuilderConsumerLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, events.StreamWork, events.ServiceBuilder, 12)
}

func TestChaosKillRecorderConsumerLeader(t *testing.T) {
	longChaos(t)
	killLeaderScenario(t, events.StreamWork, events.ServiceRecorder, 12)
}

// TestChaosColdStart: on a fresh cluster, one `codali up --workers none`
// and one process per service start at the same instant; each provisions
// what it needs, racing the others, and retries until the cluster answers.
// Then runs pass.
func TestChaosColdStart(t *testing.T) {
	cl := natstest.StartCluster(t, 3)
	cfg := fastConfig(t)
	workers := append([]string{"none"}, events.Services()...)
	ps := make([]*pipeline, len(workers))
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[i], errs[i] = startUpErr(t, upOptions{nats: cl.URLs(), replicas: 3, workers: w, config: cfg, level: "info"})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("codali up --workers %s: %v", workers[i], err)
		}
	}
	runThrough(t, ps[0], 3, nil)
}

// TestChaosSingleServerRestart: on one server (R1), the server itself is
// stopped while runs are in flight and started again on its port and
// store: the services reconnect, and every run still ends once.
func TestChaosSingleServerRestart(t *testing.T) {
	longChaos(t)
	cl := natstest.StartCluster(t, 1)
	p := startUpWith(t, upOptions{nats: cl.URLs(), replicas: 1, workers: "all", config: fastConfig(t)})
	runThrough(t, p, 6, func() {
		cl.Stop(0)
		cl.Restart(t, 0)
	})
	runThrough(t, p, 2, nil)
}
