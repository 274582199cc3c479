package exchange

import (
	"fmt"
	"strconv"
	"strings"
)

// excerptLen bounds the excerpts of a difference.
const excerptLen = 60

// FirstDifference names the first field in which b differs from a, with
// short excerpts of both values around the first differing character. It
// compares what Hash compares (printed durations do not count) and returns
// "" for equal requests.
func FirstDifference(a, b Request) (field, av, bv string) {
	a, b = a.stable(), b.stable()
	switch {
	case a.Model != b.Model:
		return "model", a.Model, b.Model
	case a.Temperature != b.Temperature:
		return "temperature", strconv.FormatFloat(a.Temperature, 'g', -1, 64), strconv.FormatFloat(b.Temperature, 'g', -1, 64)
	case a.Format != b.Format:
		return "format", a.Format, b.Format
	case a.MaxTokens != b.MaxTokens:
		return "max_tokens", strconv.Itoa(a.MaxTokens), strconv.Itoa(b.MaxTokens)
	case a.Schema != b.Schema:
		return "schema", a.Schema, b.Schema
	}
	for i := 0; i < len(a.Messages) && i < len(b.Messages); i++ {
		ma, mb := a.Messages[i], b.Messages[i]
		if ma.Role != mb.Role {
			return fmt.Sprintf("messages[%d].role", i), ma.Role, mb.Role
		}
		if ma.Content != mb.Content {
			at := commonPrefix(ma.Content, mb.Content)
			return fmt.Sprintf("messages[%d].content", i), excerpt(ma.Content, at), excerpt(mb.Content, at)
		}
	}
	if len(a.Messages) != len(b.Messages) {
		return "messages", strconv.Itoa(len(a.Messages)) + " messages", strconv.Itoa(len(b.Messages)) + " messages"
	}
	return "", "", ""
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// excerpt is up to excerptLen bytes of s starting a little before at.
func excerpt(s string, at int) string {
	start := max(at-10, 0)
	end := min(start+excerptLen, len(s))
	out := strings.ToValidUTF8(s[start:end], "")
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
