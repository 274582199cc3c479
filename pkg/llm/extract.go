package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoJSON: a model answer holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in model answer")

// extractSlack is the work ExtractJSON may do beyond extractFactor bytes
// per byte of the answer.
const (
	extractFactor = 4
	extractSlack  = 64 << 10
)

// ExtractJSON returns the first complete JSON object in a model answer,
// tolerating a Markdown code fence or prose around it. It returns an error
// wrapping ErrNoJSON when there is none.
//
// Each candidate "{" is matched to its closing brace by a scan that
// respects strings. One scan settles every "{" it passes outside a string
// (the text from there on is read the same way whichever brace the scan
// started at), so later candidates reuse its answers: a few unclosed
// braces in prose before a long answer cost one extra pass, not one per
// brace. Only balanced candidates are validated. Scanning and validating
// together stop after extractFactor times the answer's length (plus a
// little), so a hostile answer costs a few passes at most.
func ExtractJSON(answer string) ([]byte, error) {
	s := answer
	m := matcher{s: s, budget: extractFactor*len(s) + extractSlack}
	for start := strings.IndexByte(s, '{'); start >= 0; {
		end, ok := m.match(start)
		if ok {
			cand := s[start : end+1]
			m.budget -= len(cand)
			if m.budget >= 0 && json.Valid([]byte(cand)) {
				return bytes.TrimSpace([]byte(cand)), nil
			}
		}
		if m.budget < 0 {
			return nil, fmt.Errorf("%w: gave up after scanning %d bytes", ErrNoJSON, extractFactor*len(s)+extractSlack)
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += next + 1
	}
	return nil, ErrNoJSON
}

// unbalanced is the closer of a "{" whose braces never balance.
const unbalanced = -1

// matcher matches "{" to their closing brackets, remembering every
// answer a scan yields.
type matcher struct {
	s      string
	budget int
	// settled holds, at the index of each "{" read outside a string, one
	// more than the index of the bracket that closes it, or unbalanced;
	// zero where nothing is known yet. Made by the first scan.
	settled []int32
}

// closer returns what is known of the "{" at i: the index of its closing
// bracket or unbalanced, and whether anything is known.
func (m *matcher) closer(i int) (int, bool) {
	if m.settled == nil || m.settled[i] == 0 {
		return 0, false
	}
	if m.settled[i] == unbalanced {
		return unbalanced, true
	}
	return int(m.settled[i]) - 1, true
}

// settle records end (an index or unbalanced) as the closer of the "{" at i.
func (m *matcher) settle(i, end int) {
	if end == unbalanced {
		m.settled[i] = unbalanced
		return
	}
	m.settled[i] = int32(end + 1)
}

// match returns the index of the bracket that closes the "{" at start
// (any closing bracket that brings the depth back to zero) and whether
// that bracket is "}". When the brackets never balance it returns len(s)
// and false.
func (m *matcher) match(start int) (int, bool) {
	if end, seen := m.closer(start); seen {
		return m.result(end)
	}
	if m.settled == nil {
		m.settled = make([]int32, len(m.s))
	}
	m.scan(start)
	end, _ := m.closer(start)
	return m.result(end)
}

func (m *matcher) result(end int) (int, bool) {
	if end == unbalanced {
		return len(m.s), false
	}
	return end, m.s[end] == '}'
}

// scan reads s from the "{" at start until that brace is closed,
// recording the closer of every "{" it opens on the way. A "{" already
// settled by an earlier scan is skipped over (or, when it never closes,
// ends the scan: nothing opened before it can close either).
func (m *matcher) scan(start int) {
	s := m.s
	var open []int // indexes of the open brackets, innermost last
	settleOpen := func(end int) {
		for _, i := range open {
			if s[i] == '{' {
				m.settle(i, end)
			}
		}
	}
	inString := false
	for i := start; i < len(s); i++ {
		m.budget--
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			if end, seen := m.closer(i); seen && i != start {
				if end == unbalanced {
					settleOpen(unbalanced)
					return
				}
				i = end
				continue
			}
			open = append(open, i)
		case '[':
			open = append(open, i)
		case '}', ']':
			top := open[len(open)-1]
			open = open[:len(open)-1]
			if s[top] == '{' {
				m.settle(top, i)
			}
			if len(open) == 0 {
				return
			}
		}
	}
	settleOpen(unbalanced)
}
