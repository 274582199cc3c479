package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/proctest"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go/jetstream"
)

// The process-level chaos suite (CODALI_CHAOS=1, `make chaos`): three
// nats-server processes with routes on loopback, every stream and bucket
// R3, and each service as its own process, as a platform team runs them.
// Faults are SIGKILLs: a killed process closes no connection and hands no
// leadership over. The binaries come from CODALI_CHAOS_BIN (a directory
// `make chaos` fills with `go build`) or are built into a temporary
// directory.

// chaosBinaries returns a directory holding nats-server (built from the
// module version the repository pins), codali and the five services.
func chaosBinaries(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("CODALI_CHAOS_BIN"); dir != "" {
		return dir
	}
	dir := t.TempDir()
	pkgs := map[string]string{"nats-server": "github.com/nats-io/nats-server/v2", "codali": "./cmd/codali"}
	for _, s := range events.Services() {
		pkgs[s] = "./services/" + s + "/cmd/" + s
	}
	for name, pkg := range pkgs {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return dir
}

// procPipeline is a process cluster and the pipeline's processes on it.
type procPipeline struct {
	*pipeline
	cl    *natstest.ProcessCluster
	procs map[string]*proctest.Process
	// health is each process's health address.
	health map[string]string
	// notReady collects what /readyz said while a process was not ready.
	mu       sync.Mutex
	notReady map[string][]string
}

// upProcess is the name of the `codali up --workers none` process.
const upProcess = "up"

// startProcPipeline starts the cluster and, at the same instant, `codali
// up --workers none` and one process per service, all given every
// server's URL, and waits until every process is ready.
func startProcPipeline(t *testing.T) *procPipeline {
	t.Helper()
	longChaos(t)
	bins := chaosBinaries(t)
	log := &syncbuf.Buffer{}
	cl := natstest.StartProcessCluster(t, filepath.Join(bins, "nats-server"), 3, io.Discard)
	cfg := fastConfig(t)
	names := append([]string{upProcess}, events.Services()...)
	ports := natstest.FreePorts(t, len(names))
	pp := &procPipeline{pipeline: &pipeline{url: cl.URLs(), log: log}, cl: cl,
		procs: map[string]*proctest.Process{}, health: map[string]string{}, notReady: map[string][]string{}}
	for i, n := range names {
		addr := "127.0.0.1:" + strconv.Itoa(ports[i])
		common := []string{"--nats", cl.URLs(), "--replicas", "3", "--http", addr, "--config", cfg, "--log-level", "warn"}
		bin, args := filepath.Join(bins, n), common
		if n == upProcess {
			bin, args = filepath.Join(bins, "codali"), append([]string{"up", "--workers", "none", "--data", t.TempDir()}, common...)
		}
		pp.health[n] = addr
		pp.procs[n] = proctest.New(t, proctest.Spec{Name: n, Bin: bin, Args: args, Dir: t.TempDir(),
			Env: []string{"TMPDIR=" + t.TempDir()}, Out: &prefixWriter{prefix: n + ": ", w: log}})
	}
	for _, n := range names {
		if err := pp.procs[n].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		pp.waitReady(t, n)
	}
	return pp
}

// waitReady polls the process's /readyz (up to two minutes) until it
// answers 200, keeping what it said before.
func (pp *procPipeline) waitReady(t *testing.T, name string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if pp.procs[name].Exited() {
			t.Fatalf("%s exited with %d:\n%s", name, pp.procs[name].ExitCode(), pp.log.String())
		}
		resp, err := client.Get("http://" + pp.health[name] + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			pp.mu.Lock()
			pp.notReady[name] = append(pp.notReady[name], strings.TrimSpace(string(body)))
			pp.mu.Unlock()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after two minutes:\n%s", name, pp.log.String())
		}
		time.Sleep(100 * time.Millisecond) // poll interval
	}
}

// noneExited fails the test if a pipeline process exited by itself.
func (pp *procPipeline) noneExited(t *testing.T) {
	t.Helper()
	for n, p := range pp.procs {
		if p.Exited() {
			t.Errorf("%s exited with %d", n, p.ExitCode())
		}
	}
}

// killLeader returns a fault that SIGKILLs the server leading stream (or
// its consumer) and returns when another member leads it.
func (pp *procPipeline) killLeader(t *testing.T, js jetstream.JetStream, stream, consumer string, victim *int) func() time.Time {
	return func() time.Time {
		*victim = pp.leader(t, js, stream, consumer, -1)
		killed := time.Now()
		pp.cl.Kill(*victim)
		pp.leader(t, js, stream, consumer, *victim)
		elected := time.Now()
		t.Logf("SIGKILL %s, leader of %s %s: new leader after %s", pp.cl.Name(*victim), stream, consumer, elected.Sub(killed).Round(time.Millisecond))
		return elected
	}
}

// leader waits (up to a minute) until a member other than not leads the
// stream (or its consumer) and returns it.
func (pp *procPipeline) leader(t *testing.T, js jetstream.JetStream, stream, consumer string, not int) int {
	t.Helper()
	leader := -1
	eventually(t, "a leader of "+stream+" "+consumer, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if consumer == "" {
			leader = pp.cl.StreamLeader(ctx, js, stream)
		} else {
			leader = pp.cl.ConsumerLeader(ctx, js, stream, consumer)
		}
		return leader >= 0 && leader != not
	})
	return leader
}

// rejoin restarts a killed server while runs are in flight, then checks
// runs after it has rejoined.
func (pp *procPipeline) rejoin(t *testing.T, victim int) {
	t.Helper()
	res := runLoad(t, pp.pipeline, chaosLoad{runs: 16, inFlight: 8, faultAfter: 2, fault: func() time.Time {
		pp.cl.Restart(t, victim)
		return time.Now()
	}})
	t.Logf("%s rejoined: %d runs in flight ended within %s of its restart", pp.cl.Name(victim), res.inFlight, res.recovered.Round(time.Millisecond))
	runLoad(t, pp.pipeline, chaosLoad{runs: 8, inFlight: 8})
}

// maxRecovery is the bound of the issue: every run in flight ends within
// 60 s of the new leader's election.
const maxRecovery = 60 * time.Second

func checkRecovery(t *testing.T, what string, res chaosResult) {
	t.Helper()
	t.Logf("%s: %d runs in flight, the last ended %s after the new leader; longest run %s",
		what, res.inFlight, res.recovered.Round(time.Millisecond), res.longest.Round(time.Millisecond))
	if res.recovered > maxRecovery {
		t.Errorf("%s: runs in flight ended %s after the new leader's election, want <= %s", what, res.recovered, maxRecovery)
	}
}

// TestChaosProcessColdStart: the five services and `codali up --workers
// none` start at the same instant against a fresh cluster of processes;
// all come up (none exits), and runs pass.
func TestChaosProcessColdStart(t *testing.T) {
	pp := startProcPipeline(t)
	pp.noneExited(t)
	for n, said := range pp.notReady {
		for _, s := range said {
			if s == "" {
				t.Errorf("%s: /readyz answered not ready without saying why", n)
			}
		}
		if len(said) > 0 {
			t.Logf("%s: /readyz while starting: %q", n, said[len(said)-1])
		}
	}
	runLoad(t, pp.pipeline, chaosLoad{runs: 8, inFlight: 8})
	pp.noneExited(t)
}

// TestChaosProcessKillWorkLeader: SIGKILL of the server leading CODALI
// while 60 runs go through 8 at a time, then its restart.
func TestChaosProcessKillWorkLeader(t *testing.T) {
	pp := startProcPipeline(t)
	_, js := pp.js(t)
	victim := -1
	res := runLoad(t, pp.pipeline, chaosLoad{runs: 60, inFlight: 8, faultAfter: 12,
		fault: pp.killLeader(t, js, events.StreamWork, "", &victim)})
	checkRecovery(t, "SIGKILL of the CODALI leader", res)
	pp.rejoin(t, victim)
	pp.noneExited(t)
}

// TestChaosProcessKillLeaders: on one pipeline, in turn, SIGKILL of the
// server leading RAO, the runs bucket and the builder's consumer, each
// under load and then restarted under load.
func TestChaosProcessKillLeaders(t *testing.T) {
	pp := startProcPipeline(t)
	_, js := pp.js(t)
	for _, target := range []struct{ stream, consumer string }{
		{events.StreamRAO, ""},
		{"KV_" + events.BucketRuns, ""},
		{events.StreamWork, events.ServiceBuilder},
	} {
		victim := -1
		res := runLoad(t, pp.pipeline, chaosLoad{runs: 30, inFlight: 8, faultAfter: 8,
			fault: pp.killLeader(t, js, target.stream, target.consumer, &victim)})
		checkRecovery(t, fmt.Sprintf("SIGKILL of the leader of %s %s", target.stream, target.consumer), res)
		pp.rejoin(t, victim)
	}
	pp.noneExited(t)
}

// TestChaosProcessKillServices: SIGKILL of the builder, the critic and the
// recorder mid-load, each started again at once (as a supervisor would).
func TestChaosProcessKillServices(t *testing.T) {
	pp := startProcPipeline(t)
	for _, s := range []string{events.ServiceBuilder, events.ServiceCritic, events.ServiceRecorder} {
		res := runLoad(t, pp.pipeline, chaosLoad{runs: 30, inFlight: 8, faultAfter: 8, fault: func() time.Time {
			pp.procs[s].Kill()
			if err := pp.procs[s].Start(); err != nil {
				t.Fatal(err)
			}
			pp.waitReady(t, s)
			return time.Now()
		}})
		t.Logf("SIGKILL of %s: %d runs in flight, the last ended %s after it was ready again; longest run %s",
			s, res.inFlight, res.recovered.Round(time.Millisecond), res.longest.Round(time.Millisecond))
		if res.recovered > maxRecovery {
			t.Errorf("SIGKILL of %s: runs in flight ended %s after its restart, want <= %s", s, res.recovered, maxRecovery)
		}
	}
	pp.noneExited(t)
}

// prefixWriter writes each line of a process's output to w with a prefix.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     sync.Mutex
	rest   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rest = append(p.rest, b...)
	for {
		i := bytes.IndexByte(p.rest, '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := p.w.Write(append([]byte(p.prefix), p.rest[:i+1]...)); err != nil {
			return 0, err
		}
		p.rest = p.rest[i+1:]
	}
}
