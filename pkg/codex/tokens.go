package codex

import "strings"

// token is one parsed token of a block.
type token struct {
	text  string // the token as written, whitespace inside parentheses removed
	key   string // label before the first '=' or ':' outside parentheses; "" for a bare symbol
	op    byte   // '=', ':' or 0 for a bare symbol
	value string // text after op
	// spaced is true when the token was separated from the previous one by
	// spaces only (same line, no '|' or ','): used to spot prose.
	spaced bool
}

// separator kinds seen between two pieces, as a bit set.
const (
	sepSpace = 1 << iota
	sepNewline
	sepComma
	sepPipe
)

type piece struct {
	text string
	seps int
}

// tokenize splits block content into tokens (decoder step 4). Tokens are
// separated by '|', by whitespace, and, when the block holds no '|' at all,
// by commas outside parentheses (the comma fallback). Whitespace inside
// parentheses is dropped. A comma-separated piece that is not itself a token
// (no '=' or ':') continues the previous key=value token, so
// "hotspots=mod#a913,api#f02c" stays whole; so does a piece glued by a
// trailing or leading ',' or '+'. Bare symbols that stand alone in a block
// (proj#… in DATA, adr#… in DECISIONS, checksum#… in OPTIONAL) are never
// glued. Token order is preserved.
func tokenize(block, content string) []token {
	pieces := splitPieces(content)
	commaMode := !strings.ContainsRune(content, '|')
	groups := make([]*group, 0, len(pieces))
	for _, p := range pieces {
		if n := len(groups); n > 0 && p.seps&sepPipe == 0 {
			prev := groups[n-1]
			switch {
			case prev.last == ',' || prev.last == '+' || p.text[0] == ',' || p.text[0] == '+':
				prev.add(p.text)
				continue
			case commaMode && p.seps&sepComma != 0 && prev.hasOp && !isHead(p.text) && !standsAlone(block, p.text):
				prev.add(",")
				prev.add(p.text)
				continue
			}
		}
		g := &group{spaced: p.seps == sepSpace}
		g.add(p.text)
		groups = append(groups, g)
	}
	out := make([]token, len(groups))
	for i, g := range groups {
		out[i] = parseToken(g.text.String(), g.spaced)
	}
	return out
}

// group accumulates the pieces of one token in linear time, tracking what
// parseToken would find on the text so far.
type group struct {
	text   strings.Builder
	spaced bool
	hasOp  bool // an '=' or ':' outside parentheses was seen
	depth  int  // parenthesis depth at the end of the text
	last   byte // last byte of the text
}

func (g *group) add(s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			g.depth++
		case ')':
			if g.depth > 0 {
				g.depth--
			}
		case '=', ':':
			if g.depth == 0 {
				g.hasOp = true
			}
		}
	}
	g.text.WriteString(s)
	if s != "" {
		g.last = s[len(s)-1]
	}
}

// splitPieces cuts content at separators, recording which separators
// preceded each piece.
func splitPieces(content string) []piece {
	commaMode := !strings.ContainsRune(content, '|')
	var pieces []piece
	var cur strings.Builder
	seps, depth := 0, 0
	flush := func(sep int) {
		if cur.Len() > 0 {
			pieces = append(pieces, piece{text: cur.String(), seps: seps})
			cur.Reset()
			seps = 0
		}
		seps |= sep
	}
	for i := 0; i < len(content); i++ {
		c := content[i]
		switch {
		case c == '|':
			flush(sepPipe)
			depth = 0
		case c == '\n':
			flush(sepNewline)
			depth = 0
		case c == ' ':
			if depth == 0 {
				flush(sepSpace)
			}
		case c == ',' && commaMode && depth == 0:
			flush(sepComma)
		default:
			if c == '(' {
				depth++
			} else if c == ')' && depth > 0 {
				depth--
			}
			cur.WriteByte(c)
		}
	}
	flush(0)
	return pieces
}

// parseToken splits text at its first '=' or ':' outside parentheses.
func parseToken(text string, spaced bool) token {
	t := token{text: text, spaced: spaced}
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case '=', ':':
			if depth == 0 {
				t.key, t.op, t.value = text[:i], c, text[i+1:]
				return t
			}
		}
	}
	return t
}

// isHead reports whether text is a key=value or key:value token.
func isHead(text string) bool { return parseToken(text, false).op != 0 }

// standsAlone reports whether text is a bare symbol with its own meaning in
// block, which the comma fallback must not glue to the previous token.
func standsAlone(block, text string) bool {
	if !IsHashID(text) {
		return false
	}
	ns, _, _ := cutByte(text, '#')
	switch block {
	case BlockData:
		return ns == "proj"
	case BlockDecisions:
		return ns == "adr"
	case BlockOptional:
		return ns == "checksum"
	default:
		return false
	}
}

// splitList splits a list value on ',' and '+'. An empty value gives an
// empty, non-nil list.
func splitList(v string) List[string] {
	out := List[string]{}
	if v == "" {
		return out
	}
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ',' || v[i] == '+' {
			if i > start {
				out = append(out, v[start:i])
			}
			start = i + 1
		}
	}
	return out
}
