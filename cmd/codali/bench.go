package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/nats-io/nats.go"
	"github.com/schollz/progressbar/v3"
)

// benchOptions are the flags of `codali bench`.
type benchOptions struct {
	conn     bus.ConnectOptions
	external bool
	metrics  string
	repo     string
	n        int
	inflight int
	timeout  time.Duration
	asJSON   bool
	floor    bool
	// cpuProfile and trace name files for a CPU profile and an execution
	// trace of this process during the Codali runs (the embedded
	// pipeline's services run in it).
	cpuProfile, trace string
	// workspaces is where the embedded pipeline's workspaces go (see
	// benchWorkspaces).
	workspaces string
	// script replaces benchScript (tests make runs fail with it).
	script string
}

func cmdBench(ctx context.Context, c *cli, args []string) int {
	var o benchOptions
	fs := c.newFlags("bench", "bench [-n N] [--inflight K] [--floor] [--json] [--timeout D] [--workspaces DIR] [--cpuprofile FILE] [--trace FILE] [--nats URLS --metrics URLS --repo PATH]")
	o.conn.Bind(fs, func(string) string { return "" })
	fs.IntVar(&o.n, "n", 200, "runs to make")
	fs.IntVar(&o.inflight, "inflight", 1, "runs in flight at once")
	fs.StringVar(&o.metrics, "metrics", "", "with --nats: comma-separated /metrics URLs of the pipeline's processes (for the per-phase breakdown)")
	fs.StringVar(&o.repo, "repo", "", "with --nats: repository the runs change (the workers must read it); default: a scratch one")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "give up on a run after this long")
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON (no progress bar)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process during the Codali runs to FILE (go tool pprof)")
	fs.StringVar(&o.trace, "trace", "", "write an execution trace of this process during the Codali runs to FILE (go tool trace; -pprof=syscall shows where handlers wait)")
	fs.StringVar(&o.workspaces, "workspaces", "", "without --nats: directory for the embedded pipeline's workspaces (default: tmpfs /dev/shm when there is one, else beside its data)")
	fs.BoolVar(&o.floor, "floor", false, "also run a minimal JetStream pipeline with the same message pattern and no domain work, and print Codali's figures as a ratio of it")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		c.errorf("bench: unexpected arguments: %s", strings.Join(pos, " "))
		return exitUsage
	}
	if o.n < 1 || o.inflight < 1 || o.timeout <= 0 {
		c.errorf("bench: -n and --inflight must be >= 1 and --timeout positive")
		return exitUsage
	}
	o.external = o.conn.URL != ""
	if !o.external && (o.metrics != "" || o.repo != "") {
		c.errorf("bench: --metrics and --repo go with --nats (a running pipeline)")
		return exitUsage
	}
	if o.external && o.workspaces != "" {
		c.errorf("bench: --workspaces goes without --nats (the running pipeline's configuration places its workspaces)")
		return exitUsage
	}
	return c.runBench(ctx, o)
}

// runBench runs the bench and reports it. A bench in which any run failed
// (or the floor's did) measured failures, not the pipeline: it says so
// on stderr and in the report, and exits 1.
func (c *cli) runBench(ctx context.Context, o benchOptions) int {
	res, err := c.bench(ctx, o)
	if err != nil {
		c.errorf("bench: %v", err)
		return exitFailure
	}
	res.judge()
	if o.asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		res.print(c.stdout)
	}
	if !res.Valid {
		c.errorf("bench: INVALID: %s", res.Invalid)
		return exitFailure
	}
	return exitOK
}

// benchResult is the outcome of `codali bench`.
type benchResult struct {
	Runs     int          `json:"runs"`
	InFlight int          `json:"in_flight"`
	Codali   loadResult   `json:"codali"`
	Phases   *phaseTimes  `json:"phases,omitempty"`
	Floor    *loadResult  `json:"floor,omitempty"`
	Ratio    *floorRatios `json:"ratio_to_floor,omitempty"`
	// Workspaces is the embedded pipeline's workspace root and
	// WorkspacesFS its kind of file system (tmpfs or disk).
	Workspaces   string `json:"workspaces,omitempty"`
	WorkspacesFS string `json:"workspaces_fs,omitempty"`
	// Valid is false when a run failed: the figures then time failures.
	Valid bool `json:"valid"`
	// Invalid says why the bench is not valid.
	Invalid string `json:"invalid,omitempty"`
}

// judge sets Valid and Invalid: every run, Codali's and the floor's,
// must have passed.
func (r *benchResult) judge() {
	var why []string
	if l := r.Codali; l.Failed > 0 || l.Passed == 0 {
		why = append(why, fmt.Sprintf("%d of %d codali runs failed (first: %s)", l.Failed, l.Passed+l.Failed, short(l.FirstFailure, 300)))
	}
	if l := r.Floor; l != nil && (l.Failed > 0 || l.Passed == 0) {
		why = append(why, fmt.Sprintf("%d of %d floor runs failed (first: %s)", l.Failed, l.Passed+l.Failed, short(l.FirstFailure, 300)))
	}
	r.Valid = len(why) == 0
	r.Invalid = strings.Join(why, "; ")
	if !r.Valid {
		r.Invalid += ": the figures time failed runs, not the pipeline"
	}
}

// floorRatios compare Codali with the floor: how many times slower.
type floorRatios struct {
	RunsPerSec float64 `json:"runs_per_sec"`
	P50        float64 `json:"p50"`
	P99        float64 `json:"p99"`
}

func (c *cli) bench(ctx context.Context, o benchOptions) (*benchResult, error) {
	res := &benchResult{Runs: o.n, InFlight: o.inflight}
	url, repo, metricURLs := o.conn.URL, o.repo, splitList(o.metrics)
	if !o.external {
		p, err := c.startBenchPipeline(ctx, o)
		if err != nil {
			return nil, err
		}
		defer p.stop()
		url, repo, metricURLs = p.url, p.repo, []string{p.metrics}
		res.Workspaces, res.WorkspacesFS = p.workspaces, p.workspacesFS
	} else if repo == "" {
		dir, err := os.MkdirTemp("", "codali-bench-repo-")
		if err != nil {
			return nil, err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		if err := writeBenchRepo(dir); err != nil {
			return nil, err
		}
		repo = dir
	}
	conn := o.conn
	conn.URL = url
	cl, err := c.connect(conn)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	before, err := scrapeAll(ctx, metricURLs)
	if err != nil {
		return nil, err
	}
	gen := loadGen{n: o.n, inflight: o.inflight, timeout: o.timeout, progress: c.progress(o, o.n, "codali")}
	stopProfiles, err := startProfiles(o.cpuProfile, o.trace)
	if err != nil {
		return nil, err
	}
	res.Codali, err = gen.run(ctx, cl.nc, codaliDriver{cl: cl, repo: repo})
	if perr := stopProfiles(); err == nil && perr != nil {
		err = perr
	}
	if err != nil {
		return nil, err
	}
	// The recorder works behind the runs: wait until it has caught up,
	// so its time is in the breakdown.
	res.Codali.RecorderCatchUpMS = ms(waitRecorder(ctx, cl))
	after, err := scrapeAll(ctx, metricURLs)
	if err != nil {
		return nil, err
	}
	if len(metricURLs) > 0 {
		res.Phases = breakdown(before, after, res.Codali.Passed+res.Codali.Failed)
	}
	if o.floor {
		f, err := runFloor(ctx, loadGen{n: o.n, inflight: o.inflight, timeout: o.timeout, progress: c.progress(o, o.n, "floor")})
		if err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
		res.Floor = &f
		res.Ratio = &floorRatios{
			RunsPerSec: ratio(f.RunsPerSec, res.Codali.RunsPerSec),
			P50:        ratio(res.Codali.P50MS, f.P50MS),
			P99:        ratio(res.Codali.P99MS, f.P99MS),
		}
	}
	return res, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// progress returns a progress bar on stderr, or nil with --json or when
// stderr is no terminal (a log file or a CI job would get a line of
// carriage returns).
func (c *cli) progress(o benchOptions, n int, what string) *progressbar.ProgressBar {
	if o.asJSON || !c.stderrTTY {
		return nil
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(c.stderr), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("runs"),
		progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
}

// waitRecorder waits until the recorder's consumer has nothing pending,
// and returns how long that took (at most a minute).
func waitRecorder(ctx context.Context, cl *client) time.Duration {
	start := time.Now()
	deadline := start.Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		cons, err := cl.js.Consumer(ctx, events.StreamWork, events.ServiceRecorder)
		if err == nil {
			if info, err := cons.Info(ctx); err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
				return time.Since(start)
			}
		}
		time.Sleep(5 * time.Millisecond) // poll interval
	}
	return time.Since(start)
}

// benchPipeline is the embedded pipeline bench starts without --nats.
type benchPipeline struct {
	url, repo, metrics string
	// workspaces is the workspace root, on a file system of kind
	// workspacesFS.
	workspaces, workspacesFS string
	stop                     func()
}

// benchWorkspaces makes the workspace root of the embedded pipeline: a
// scratch directory in dir, or without dir on tmpfs (/dev/shm) when the
// host has one, else in fallback. Workspaces are scratch space made and
// removed per run, which on a disk file system is mostly metadata writes
// (see docs/architecture.md, Performance). It returns the root, the kind
// of its file system and how to remove it.
func benchWorkspaces(dir, fallback string) (root, kind string, remove func(), err error) {
	const pattern = "codali-bench-ws-"
	if dir != "" {
		root, err = os.MkdirTemp(dir, pattern)
	} else {
		err = errNoTmpfs
		if onTmpfs(benchShm) {
			root, err = os.MkdirTemp(benchShm, pattern)
		}
		if err != nil { // no usable tmpfs: beside the data
			root, err = os.MkdirTemp(fallback, pattern)
		}
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("workspaces: %w", err)
	}
	kind = "disk"
	if onTmpfs(root) {
		kind = "tmpfs"
	}
	return root, kind, func() { _ = os.RemoveAll(root) }, nil
}

// benchShm is where bench looks for tmpfs.
const benchShm = "/dev/shm"

var errNoTmpfs = errors.New("no tmpfs")

// benchScript is the zero-latency scripted model: one plan with a trivial
// check, one edit, done.
const benchScript = `{"responses":[
  {"phase":"architect","json":{"summary":"bench","steps":[{"description":"write bench.txt","files":["bench.txt"]}],"creates":["bench.txt"],"verify":[{"name":"written","command":["test","-f","bench.txt"]}]}},
  {"phase":"builder","step":1,"json":{"tool_calls":[{"tool":"write_file","args":{"path":"bench.txt","content":"bench\n"}}]}},
  {"phase":"builder","step":2,"json":{"done":true,"summary":"wrote bench.txt"}}]}`

const benchPolicy = `{"never_touch":[".git/**"],"commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`

const benchConfig = `{"providers":{"bench":{"type":"scripted","script":"script.json"}},
  "routing":{"architect":{"provider":"bench"},"builder":{"provider":"bench"}},
  "policy":"policy.json", "workspace":{"root":%s}}`

// writeBenchRepo writes the scratch repository the bench runs change.
func writeBenchRepo(dir string) error {
	files := map[string]string{
		"README.md": "# bench\n\nA scratch repository for codali bench.\n",
		"main.go":   "package main\n\nfunc main() {}\n",
		"go.mod":    "module bench\n\ngo 1.22\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// startBenchPipeline runs `codali up` in this process with the bench
// configuration (o.script, when not empty, replacing benchScript), on free
// ports, a scratch data directory and the workspace root benchWorkspaces
// makes.
func (c *cli) startBenchPipeline(ctx context.Context, o benchOptions) (*benchPipeline, error) {
	script := o.script
	if script == "" {
		script = benchScript
	}
	dir, err := os.MkdirTemp("", "codali-bench-")
	if err != nil {
		return nil, err
	}
	wsRoot, wsKind, removeWS, err := benchWorkspaces(o.workspaces, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cleanup := func() { removeWS(); _ = os.RemoveAll(dir) }
	rootJSON, err := json.Marshal(wsRoot)
	if err != nil {
		cleanup()
		return nil, err
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		cleanup()
		return nil, err
	}
	if err := writeBenchRepo(repo); err != nil {
		cleanup()
		return nil, err
	}
	for name, body := range map[string]string{"script.json": script, "policy.json": benchPolicy, "codali.config.json": fmt.Sprintf(benchConfig, rootJSON)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			cleanup()
			return nil, err
		}
	}
	upCtx, cancel := context.WithCancel(ctx)
	ready := make(chan string, 1)
	out, logs := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	up := &cli{stdin: strings.NewReader(""), stdout: out, stderr: logs, getenv: c.getenv}
	done := make(chan int, 1)
	go func() {
		done <- up.up(upCtx, upOptions{data: filepath.Join(dir, "data"), listen: "127.0.0.1:0", http: "127.0.0.1:0",
			workers: "all", config: filepath.Join(dir, "codali.config.json"), level: "error", replicas: 1, ready: ready})
	}()
	var url string
	select {
	case url = <-ready:
	case code := <-done:
		cancel()
		cleanup()
		return nil, fmt.Errorf("embedded pipeline exited %d: %s", code, logs.String())
	case <-ctx.Done():
		cancel()
		<-done
		cleanup()
		return nil, ctx.Err()
	}
	m := regexp.MustCompile(`health http://([0-9.:]+)/readyz`).FindStringSubmatch(out.String())
	if m == nil {
		cancel()
		<-done
		cleanup()
		return nil, errors.New("embedded pipeline did not announce its health address")
	}
	return &benchPipeline{url: url, repo: repo, metrics: "http://" + m[1] + "/metrics", workspaces: wsRoot, workspacesFS: wsKind, stop: func() {
		cancel()
		<-done
		cleanup()
	}}, nil
}

// codaliDriver submits bench runs to a Codali pipeline.
type codaliDriver struct {
	cl   *client
	repo string
}

func (d codaliDriver) terminalSubjects() []string {
	return []string{events.KindPassed.FilterSubject(), events.KindFailed.FilterSubject()}
}

func (d codaliDriver) runOf(m *nats.Msg) (string, bool, string) {
	run, kind, err := events.ParseSubject(m.Subject)
	if err != nil {
		return run, false, err.Error()
	}
	if kind == events.KindPassed {
		return run, true, ""
	}
	env, err := events.Decoder{MaxBytes: 8 << 20}.Decode(m.Subject, m.Data)
	if err != nil {
		return run, false, fmt.Sprintf("unreadable terminal event: %v", err)
	}
	var v events.VerdictData
	if err := events.DecodeData(env, &v); err != nil {
		return run, false, fmt.Sprintf("unreadable verdict: %v", err)
	}
	return run, false, v.Reason
}

func (d codaliDriver) submit(ctx context.Context, i int, started func(runID string)) error {
	runID, err := events.NewRunID(time.Now(), nil)
	if err != nil {
		return err
	}
	env, err := events.New(runID, events.KindRequested, 1, "codali/bench", time.Now(),
		events.Requested{Request: fmt.Sprintf("bench run %d", i), Repo: events.RepoRef{Path: d.repo}})
	if err != nil {
		return err
	}
	started(runID)
	return publishEvent(ctx, d.cl, env)
}

func (r benchResult) print(w io.Writer) {
	fmt.Fprintf(w, "codali bench: %d runs, %d in flight", r.Runs, r.InFlight)
	if r.Workspaces != "" {
		fmt.Fprintf(w, ", workspaces on %s (%s)", r.WorkspacesFS, r.Workspaces)
	}
	fmt.Fprint(w, "\n\n")
	if !r.Valid {
		fmt.Fprintf(w, "!!! BENCH INVALID: %s !!!\n\n", r.Invalid)
	}
	printLoad(w, "codali", r.Codali)
	if r.Phases != nil {
		r.Phases.print(w)
	}
	if r.Floor != nil {
		fmt.Fprintln(w)
		printLoad(w, "floor (JetStream only)", *r.Floor)
		fmt.Fprintf(w, "\ncodali vs floor: %.1fx fewer runs/s, p50 %.1fx, p99 %.1fx\n", r.Ratio.RunsPerSec, r.Ratio.P50, r.Ratio.P99)
	}
}

func printLoad(w io.Writer, name string, l loadResult) {
	fmt.Fprintf(w, "%-24s %8.1f runs/s   p50 %8.2f ms   p99 %8.2f ms   (%d passed, %d failed, %.2fs)\n",
		name, l.RunsPerSec, l.P50MS, l.P99MS, l.Passed, l.Failed, l.WallSeconds)
	if l.RecorderCatchUpMS > 0 {
		fmt.Fprintf(w, "%-24s recorder caught up %.1f ms after the last run ended\n", "", l.RecorderCatchUpMS)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
