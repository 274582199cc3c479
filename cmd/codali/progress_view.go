package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/progress"
)

// jsonLine is one line of `watch --json`: a run event, a progress message
// or (for a run that had already ended) its summary.
type jsonLine struct {
	Kind     string            `json:"kind"`
	Event    *events.Envelope  `json:"event,omitempty"`
	Progress *progress.Message `json:"progress,omitempty"`
	Summary  any               `json:"summary,omitempty"`
}

func (f *follower) jsonLine(l jsonLine) {
	if f.lines == nil {
		return
	}
	raw, err := json.Marshal(l)
	if err != nil {
		return
	}
	fmt.Fprintf(f.lines, "%s\n", raw)
}

// spinnerFrames are the frames of the live status line's spinner.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

func (f *follower) spinner() string {
	r := []rune(spinnerFrames)
	return string(r[f.spin%len(r)])
}

// statusWidth bounds the live status line.
const statusWidth = 110

// status is the live line: a spinner, what runs now and its latest output.
func (f *follower) status() string {
	s := fmt.Sprintf("  %s %s working (%.1fs)", f.spinner(), f.phase, time.Since(f.last).Seconds())
	if f.act != "" {
		s = fmt.Sprintf("  %s %s", f.spinner(), f.act)
		if f.tail != "" {
			s += " │ " + f.tail
		}
	}
	if r := []rune(s); len(r) > statusWidth {
		s = string(r[:statusWidth-1]) + "…"
	}
	return s
}

// progress shows a progress message: as a JSON line, in the live status
// line, and (tool calls and checks) as lines of their own.
func (f *follower) progress(p progress.Message) {
	f.jsonLine(jsonLine{Kind: "progress", Progress: &p})
	what := activityText(p)
	switch p.Type {
	case progress.TypeStart:
		f.act, f.tail = what, ""
		if !f.live && p.Activity != "model" {
			f.println("           · " + what)
		}
	case progress.TypeOutput:
		if p.Activity == "model" {
			f.tail = lastRunes(joinLines(f.tail+p.Text), 60)
		} else if line := strings.TrimSpace(p.Text); line != "" {
			f.tail = line
		}
	case progress.TypeEnd:
		if p.OK != nil && !*p.OK && p.Activity != "model" {
			f.println(fmt.Sprintf("           ✗ %s: %s", what, short(p.Error, 100)))
			if f.tail != "" && p.Activity == "check" {
				f.println("             last output: " + short(f.tail, 100))
			}
		}
		f.act, f.tail = "", ""
	}
	if f.live {
		fmt.Fprint(f.w, "\r\033[K"+f.status())
	}
}

func activityText(p progress.Message) string {
	s := p.Phase + ": " + p.Activity + " " + p.Name
	if p.Activity == "model" {
		s = p.Phase + ": model"
		if p.Name != "" {
			s += " " + p.Name
		}
	}
	if p.Detail != "" {
		s += " (" + short(p.Detail, 60) + ")" // a check's command line: "check go test (go test ./...)"
	}
	if p.Step > 0 {
		s += fmt.Sprintf(" (step %d)", p.Step)
	}
	return s
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}
