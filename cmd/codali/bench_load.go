package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/schollz/progressbar/v3"
)

// benchDriver starts runs of one pipeline and recognises their ends.
type benchDriver interface {
	// submit starts run i, calling started with its id before the run can
	// end.
	submit(ctx context.Context, i int, started func(runID string)) error
	// terminalSubjects match the events that end runs.
	terminalSubjects() []string
	// runOf returns the run a terminal event ends, whether it passed, and
	// why it failed (empty when it passed or says nothing).
	runOf(m *nats.Msg) (runID string, passed bool, reason string)
}

// loadGen makes n runs with at most inflight at once.
type loadGen struct {
	n, inflight int
	timeout     time.Duration
	progress    *progressbar.ProgressBar
}

// loadResult is what a load run measured.
type loadResult struct {
	Passed            int     `json:"passed"`
	Failed            int     `json:"failed"`
	WallSeconds       float64 `json:"wall_seconds"`
	RunsPerSec        float64 `json:"runs_per_sec"`
	P50MS             float64 `json:"p50_ms"`
	P99MS             float64 `json:"p99_ms"`
	MeanMS            float64 `json:"mean_ms"`
	RecorderCatchUpMS float64 `json:"recorder_catch_up_ms,omitempty"`
	// FirstFailure says why the first failed run failed (its terminal
	// event's reason, or the error waiting for it).
	FirstFailure string `json:"first_failure,omitempty"`
}

// maxFailureText bounds the first failure's reason kept in a result.
const maxFailureText = 2000

type runEnd struct {
	passed bool
	reason string
	at     time.Time
}

func (g loadGen) run(ctx context.Context, nc *nats.Conn, d benchDriver) (loadResult, error) {
	var mu sync.Mutex
	waiting := map[string]chan runEnd{}
	ends := make(chan *nats.Msg, 4096)
	for _, subj := range d.terminalSubjects() {
		sub, err := nc.ChanSubscribe(subj, ends)
		if err != nil {
			return loadResult{}, fmt.Errorf("could not subscribe to %s: %w", subj, err)
		}
		defer func() { _ = sub.Unsubscribe() }()
	}
	if err := nc.Flush(); err != nil {
		return loadResult{}, err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case m, ok := <-ends:
				if !ok {
					return
				}
				id, passed, reason := d.runOf(m)
				e := runEnd{passed: passed, reason: reason, at: time.Now()}
				mu.Lock()
				if ch, ok := waiting[id]; ok { // other runs are not ours
					delete(waiting, id)
					ch <- e
				}
				mu.Unlock()
			}
		}
	}()

	latencies := make([]time.Duration, 0, g.n)
	var res loadResult
	var resMu sync.Mutex
	var firstErr error
	slots := make(chan struct{}, g.inflight)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < g.n && ctx.Err() == nil; i++ {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			ch := make(chan runEnd, 1)
			var began time.Time
			var runID string
			err := d.submit(ctx, i, func(id string) {
				runID = id
				mu.Lock()
				waiting[id] = ch
				mu.Unlock()
				began = time.Now()
			})
			var end runEnd
			if err == nil {
				timer := time.NewTimer(g.timeout)
				select {
				case end = <-ch:
				case <-timer.C:
					err = fmt.Errorf("run %s did not end within %s", runID, g.timeout)
				case <-ctx.Done():
					err = ctx.Err()
				}
				timer.Stop()
			}
			resMu.Lock()
			defer resMu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				if res.FirstFailure == "" {
					res.FirstFailure = err.Error()
				}
				res.Failed++
				return
			}
			latencies = append(latencies, end.at.Sub(began))
			if end.passed {
				res.Passed++
			} else {
				res.Failed++
				if res.FirstFailure == "" {
					res.FirstFailure = short(fmt.Sprintf("run %s failed: %s", runID, end.reason), maxFailureText)
				}
			}
			if g.progress != nil {
				_ = g.progress.Add(1)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if g.progress != nil {
		_ = g.progress.Finish()
	}
	if firstErr != nil && len(latencies) == 0 {
		return res, firstErr
	}
	res.WallSeconds = wall.Seconds()
	res.RunsPerSec = float64(len(latencies)) / wall.Seconds()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	res.P50MS, res.P99MS = ms(percentile(latencies, 0.50)), ms(percentile(latencies, 0.99))
	var sum time.Duration
	for _, l := range latencies {
		sum += l
	}
	if len(latencies) > 0 {
		res.MeanMS = ms(sum / time.Duration(len(latencies)))
	}
	return res, nil
}

// percentile returns the p-quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
