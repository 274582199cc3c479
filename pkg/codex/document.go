package codex

import (
	"fmt"
	"strings"
)

// Block names, in canonical order.
const (
	// BlockData holds project, mode, phase, tasks, KPIs, health, maturity.
	BlockData = "DATA"
	// BlockTimeline holds cycles, actions, bursts, droughts, hotspots, anomalies.
	BlockTimeline = "TIMELINE"
	// BlockContext holds type, stack, devDNA, constraints, success, reasoning, risk.
	BlockContext = "CONTEXT"
	// BlockInsights holds pattern/trend/forecast/correlation tokens.
	BlockInsights = "INSIGHTS"
	// BlockDecisions holds ADR refs, drift, anomaly, integrity, adjustments.
	BlockDecisions = "DECISIONS"
	// BlockOptional holds vendor, encoder, session, checksum, policy, ext.*.
	BlockOptional = "OPTIONAL"
)

// Size limits of the format.
const (
	// MaxPayloadBytes is the largest payload accepted, in bytes.
	MaxPayloadBytes = 10240
	// MaxOptionalChars is the largest OPTIONAL block content, in characters.
	MaxOptionalChars = 512
)

const (
	rootTag  = "RL4-CODEX"
	openRoot = "<" + rootTag
	endRoot  = "</" + rootTag + ">"
)

// canonicalIndex returns the position of a known block in canonical order,
// or -1 for an unknown tag.
func canonicalIndex(name string) int {
	switch name {
	case BlockData:
		return 0
	case BlockTimeline:
		return 1
	case BlockContext:
		return 2
	case BlockInsights:
		return 3
	case BlockDecisions:
		return 4
	case BlockOptional:
		return 5
	default:
		return -1
	}
}

// requiredBlocks lists the five required blocks in canonical order.
func requiredBlocks() [5]string {
	return [5]string{BlockData, BlockTimeline, BlockContext, BlockInsights, BlockDecisions}
}

// element is one top-level element of the payload body.
type element struct {
	name    string
	content string // trimmed content
	start   int    // offset of '<' of the open tag in the normalised payload
	end     int    // offset just past the close tag
}

// document is a structurally parsed payload.
type document struct {
	normalized string
	version    string
	hasVersion bool
	elements   []element // payload order
}

// first returns the first element with the given name.
func (d *document) first(name string) (element, bool) {
	for _, e := range d.elements {
		if e.name == name {
			return e, true
		}
	}
	return element{}, false
}

// parseDocument runs validation steps 1 and 2 on a normalised payload. On
// failure it returns a message for ERROR:unparseable.
func parseDocument(p string) (*document, string) {
	if !strings.HasPrefix(p, openRoot) {
		return nil, "payload does not start with " + openRoot
	}
	gt := strings.IndexByte(p, '>')
	if gt < 0 {
		return nil, "header tag is not closed"
	}
	doc := &document{normalized: p}
	if msg := doc.parseHeader(p[len(openRoot):gt]); msg != "" {
		return nil, msg
	}
	trimmed := strings.TrimRight(p, "\n ")
	if !strings.HasSuffix(trimmed, endRoot) || len(trimmed)-len(endRoot) < gt+1 {
		return nil, "payload does not end with " + endRoot
	}
	if msg := doc.parseBody(gt+1, len(trimmed)-len(endRoot)); msg != "" {
		return nil, msg
	}
	return doc, ""
}

// parseHeader reads the attributes of the root tag; only v is used.
func (d *document) parseHeader(attrs string) string {
	if attrs != "" && !isSpace(attrs[0]) {
		return "malformed root tag"
	}
	seen := map[string]bool{}
	i := 0
	for {
		for i < len(attrs) && isSpace(attrs[i]) {
			i++
		}
		if i == len(attrs) {
			return ""
		}
		j := i
		for j < len(attrs) && isNameByte(attrs[j]) {
			j++
		}
		name := attrs[i:j]
		if name == "" || j+1 >= len(attrs) || attrs[j] != '=' || (attrs[j+1] != '"' && attrs[j+1] != '\'') {
			return "malformed attribute in root tag"
		}
		q := attrs[j+1]
		k := strings.IndexByte(attrs[j+2:], q)
		if k < 0 {
			return "unterminated attribute value in root tag"
		}
		if seen[name] {
			return "repeated attribute " + name + " in root tag"
		}
		seen[name] = true
		if name == "v" {
			d.version, d.hasVersion = attrs[j+2:j+2+k], true
		}
		i = j + 2 + k + 1
		if i < len(attrs) && !isSpace(attrs[i]) {
			return "malformed attribute in root tag"
		}
	}
}

// parseBody splits p[from:to] into flat top-level elements <NAME>…</NAME> or
// <NAME/>. Text outside elements, nesting, attributes and stray closing tags
// are unparseable.
func (d *document) parseBody(from, to int) string {
	p := d.normalized
	i := from
	for {
		for i < to && isSpace(p[i]) {
			i++
		}
		if i >= to {
			return ""
		}
		if p[i] != '<' {
			return fmt.Sprintf("text outside blocks at byte %d", i)
		}
		j := i + 1
		for j < to && isNameByte(p[j]) {
			j++
		}
		name := p[i+1 : j]
		if name == "" || !isLetter(name[0]) {
			return fmt.Sprintf("malformed tag at byte %d", i)
		}
		for j < to && p[j] == ' ' {
			j++
		}
		if j+1 < to && p[j] == '/' && p[j+1] == '>' {
			d.elements = append(d.elements, element{name: name, start: i, end: j + 2})
			i = j + 2
			continue
		}
		if j >= to || p[j] != '>' {
			return fmt.Sprintf("malformed tag <%s at byte %d", name, i)
		}
		closeTag := "</" + name + ">"
		k := strings.Index(p[j+1:to], closeTag)
		if k < 0 {
			return "block " + name + " is not closed"
		}
		content := p[j+1 : j+1+k]
		if strings.ContainsAny(content, "<>") {
			return "markup inside block " + name
		}
		end := j + 1 + k + len(closeTag)
		d.elements = append(d.elements, element{name: name, content: strings.TrimSpace(content), start: i, end: end})
		i = end
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' }

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isNameByte(c byte) bool {
	return isLetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'
}
