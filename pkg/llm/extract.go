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
// It is linear in the answer's length: each candidate "{" is matched to
// its closing brace by one scan that respects strings, only balanced
// candidates are validated, and the scanning and validating together stop
// after extractFactor times the answer's length (plus a little), so a
// hostile answer full of unbalanced braces costs a few passes, not one
// per brace.
func ExtractJSON(answer string) ([]byte, error) {
	s := answer
	budget := extractFactor*len(s) + extractSlack
	for start := strings.IndexByte(s, '{'); start >= 0; {
		end, ok := matchBrace(s, start)
		budget -= end - start
		if ok {
			cand := s[start : end+1]
			budget -= len(cand)
			if budget >= 0 && json.Valid([]byte(cand)) {
				return bytes.TrimSpace([]byte(cand)), nil
			}
		}
		if budget < 0 {
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

// matchBrace scans s from the "{" at start and returns the index of the
// brace that closes it, skipping braces inside JSON strings. When the
// braces never balance it returns len(s) and false.
func matchBrace(s string, start int) (int, bool) {
	depth, inString := 0, false
	for i := start; i < len(s); i++ {
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
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i, c == '}'
			}
		}
	}
	return len(s), false
}
