package rao

import (
	"testing"
)

// BenchmarkFootprint reports the storage reduction of a synthetic 200-event
// coding run against a full snapshot per event, with checkpoint snapshots
// compressed (as stored) and, for comparison, uncompressed.
func BenchmarkFootprint(b *testing.B) {
	events := buildHistory(b, "run-1", syntheticRun(b, 200, 1), 0)
	plain := func(e Event) ([]byte, error) { return encode(e, false) }
	var s, p Stat
	for b.Loop() {
		var err error
		if s, err = Stats(events); err != nil {
			b.Fatal(err)
		}
		if p, err = stats(events, plain); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100*s.Reduction, "%reduction")
	b.ReportMetric(100*p.Reduction, "%reduction-uncompressed")
	b.ReportMetric(float64(s.BytesStored), "bytes-stored")
	b.ReportMetric(float64(p.BytesStored), "bytes-stored-uncompressed")
	b.ReportMetric(float64(s.BytesFullSnapshots), "bytes-full-snapshots")
}

// BenchmarkFootprintEveryEvent is BenchmarkFootprint with a checkpoint at
// every event (CheckpointEvery = 1).
func BenchmarkFootprintEveryEvent(b *testing.B) {
	events := buildHistory(b, "run-1", syntheticRun(b, 200, 1), 1)
	var s Stat
	for b.Loop() {
		var err error
		if s, err = Stats(events); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100*s.Reduction, "%reduction")
	b.ReportMetric(float64(s.BytesStored), "bytes-stored")
}

// BenchmarkReplay200 replays the last state of a 200-event run (from the
// checkpoint at seq 200) and, in the sub-benchmark, the state of seq 199
// (checkpoint 190 plus nine deltas, the worst case).
func BenchmarkReplay200(b *testing.B) {
	events := buildHistory(b, "run-1", syntheticRun(b, 200, 1), 0)
	for _, tc := range []struct {
		name string
		upto uint64
	}{{"last", 0}, {"seq199", 199}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Replay(events, tc.upto); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStates200 rebuilds all 200 states of a run (timelines).
func BenchmarkStates200(b *testing.B) {
	events := buildHistory(b, "run-1", syntheticRun(b, 200, 1), 0)
	for b.Loop() {
		if _, err := States(events); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "states/s")
}

// BenchmarkVerify200 verifies a 200-event run.
func BenchmarkVerify200(b *testing.B) {
	events := buildHistory(b, "run-1", syntheticRun(b, 200, 1), 0)
	for b.Loop() {
		if r := Verify(events); !r.OK() {
			b.Fatal(r)
		}
	}
}

// BenchmarkDiff measures delta generation over the 199 transitions of the
// synthetic run; MB/s counts the bytes of both input states.
func BenchmarkDiff(b *testing.B) {
	states := syntheticRun(b, 200, 1)
	var in int64
	for i := 1; i < len(states); i++ {
		in += int64(len(states[i-1]) + len(states[i]))
	}
	b.SetBytes(in / int64(len(states)-1))
	b.ResetTimer()
	n := 0
	for b.Loop() {
		i := 1 + n%(len(states)-1)
		if _, err := Diff(states[i-1], states[i]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkBuilderNext measures building one event (diff, hash of the
// previous event, checkpoint every 10th) over the synthetic run.
func BenchmarkBuilderNext(b *testing.B) {
	states := syntheticRun(b, 200, 1)
	events := buildHistory(b, "run-1", states, 0)
	bl := Builder{RunID: "run-1"}
	n := 0
	for b.Loop() {
		i := 1 + n%(len(states)-1)
		if _, err := bl.Next(&events[i-1], states[i-1], states[i], KindRun, "c", "s", Meta{}, testTime); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
