package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is the sum and count of one histogram series.
type sample struct{ sum, count float64 }

// scrape maps "metric|service|label" to the histogram's sum and count.
type scrape map[string]sample

// scrapeAll reads and adds up the handler and step histograms of every
// metrics URL.
func scrapeAll(ctx context.Context, urls []string) (scrape, error) {
	out := scrape{}
	for _, u := range urls {
		if err := scrapeInto(ctx, u, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scrapeInto(ctx context.Context, url string, out scrape) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("metrics URL %q: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("could not read metrics from %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("could not read metrics from %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("could not parse metrics from %s: %w", url, err)
	}
	for name, label := range map[string]string{"codali_handler_duration_seconds": "event", "codali_step_duration_seconds": "step"} {
		f := families[name]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if h == nil {
				continue
			}
			k := name + "|" + labelOf(m, "service") + "|" + labelOf(m, label)
			s := out[k]
			s.sum += h.GetSampleSum()
			s.count += float64(h.GetSampleCount())
			out[k] = s
		}
	}
	return nil
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// phaseTimes is where a run's time went, in milliseconds per run (mean
// over the bench's runs), from the processes' own histograms.
type phaseTimes struct {
	// Steps are the timed steps summed over services: model, workspace,
	// tools, checks, index, publish.
	Steps map[string]float64 `json:"steps_ms_per_run"`
	// Recorder is the recorder's handler time per run, and per event.
	Recorder         float64 `json:"recorder_ms_per_run"`
	RecorderPerEvent float64 `json:"recorder_ms_per_event"`
	// Handlers is each phase service's handler time per run (steps
	// included).
	Handlers map[string]float64 `json:"handlers_ms_per_run"`
}

// breakdown computes the phase times of runs from two scrapes.
func breakdown(before, after scrape, runs int) *phaseTimes {
	if runs == 0 {
		return nil
	}
	p := &phaseTimes{Steps: map[string]float64{}, Handlers: map[string]float64{}}
	var recSum, recCount float64
	for k, a := range after {
		b := before[k]
		sum, count := a.sum-b.sum, a.count-b.count
		if count <= 0 {
			continue
		}
		var metric, service, label string
		parts := splitN3(k)
		metric, service, label = parts[0], parts[1], parts[2]
		perRun := sum * 1000 / float64(runs)
		switch {
		case metric == "codali_step_duration_seconds":
			p.Steps[label] += perRun
		case service == events.ServiceRecorder:
			recSum += sum
			recCount += count
		default:
			p.Handlers[service] += perRun
		}
	}
	p.Recorder = recSum * 1000 / float64(runs)
	if recCount > 0 {
		p.RecorderPerEvent = recSum * 1000 / recCount
	}
	return p
}

func splitN3(k string) [3]string {
	var out [3]string
	i := 0
	start := 0
	for j := 0; j < len(k) && i < 2; j++ {
		if k[j] == '|' {
			out[i] = k[start:j]
			i++
			start = j + 1
		}
	}
	out[i] = k[start:]
	return out
}

func (p *phaseTimes) print(w io.Writer) {
	fmt.Fprintln(w, "\nwhere a run's time goes (ms per run, summed over the phases, from the services' histograms):")
	for _, step := range []string{"model", "workspace", "tools", "checks", "index", "publish"} {
		fmt.Fprintf(w, "  %-10s %8.2f\n", step, p.Steps[step])
	}
	fmt.Fprintf(w, "  %-10s %8.2f   (%.3f ms per event)\n", "recorder", p.Recorder, p.RecorderPerEvent)
	fmt.Fprintln(w, "handler time per run (steps included):")
	for _, s := range sortedKeys(p.Handlers) {
		fmt.Fprintf(w, "  %-10s %8.2f\n", s, p.Handlers[s])
	}
}
