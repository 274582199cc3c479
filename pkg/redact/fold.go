package redact

// hintScanner tells, in one pass over a text, which rules' hints occur in
// it (ignoring ASCII case): the rules that may match there. Testing each
// rule's hints one by one would scan the text twice per hint (once per
// case of its first letter), for every rule.
//
// Only the first maxHintedRules rules can carry hints in the mask; the
// hints of a rule past them are ignored, so it always may match (slower,
// never less strict).
type hintScanner struct {
	// first marks the bytes some hint starts with, in either case.
	first [256]bool
	// second holds, per first byte, the set of bytes (either case) that
	// come second in its hints (all bytes for a one-byte hint): a cheap
	// test before reading byFirst.
	second [256][4]uint64
	// byFirst lists, per byte, the hints starting with it.
	byFirst [256][]scanHint
	// hinted has a bit for each rule whose hints the mask covers.
	hinted uint64
	// always is true when some rule may match anywhere (no hints).
	always bool
	// colonRules has a bit for each rule hinted by a word of four colons
	// (see rule.colonWords).
	colonRules uint64
}

// colonWordMin is how many colons a word needs for a colonWords rule.
const colonWordMin = 4

// isWordBreak reports whether c ends a word for colonWords: a space, a tab,
// a line break or a quote.
func isWordBreak(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '\''
}

// scanHint is a hint without its first byte and the rules it belongs to.
type scanHint struct {
	tail  string
	rules uint64
}

// maxHintedRules is how many rules a mask covers.
const maxHintedRules = 64

func newHintScanner(rules []rule) *hintScanner {
	sc := &hintScanner{}
	masks := map[string]uint64{}
	var order []string
	for i := range rules {
		if rules[i].colonWords && i < maxHintedRules {
			sc.hinted |= 1 << i
			sc.colonRules |= 1 << i
			sc.first[':'] = true
			continue
		}
		if len(rules[i].hints) == 0 || i >= maxHintedRules {
			sc.always = true
			continue
		}
		sc.hinted |= 1 << i
		for _, h := range rules[i].hints {
			if _, ok := masks[h]; !ok {
				order = append(order, h)
			}
			masks[h] |= 1 << i
		}
	}
	for _, h := range order {
		for _, c := range [2]byte{h[0], upper(h[0])} {
			if sc.first[c] && containsTail(sc.byFirst[c], h[1:]) {
				continue // a first byte that is not a letter: listed once
			}
			sc.first[c] = true
			sc.byFirst[c] = append(sc.byFirst[c], scanHint{tail: h[1:], rules: masks[h]})
			if len(h) == 1 {
				sc.second[c] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
				continue
			}
			for _, d := range [2]byte{h[1], upper(h[1])} {
				sc.second[c][d>>6] |= 1 << (d & 63)
			}
		}
	}
	return sc
}

func containsTail(hs []scanHint, tail string) bool {
	for _, h := range hs {
		if h.tail == tail {
			return true
		}
	}
	return false
}

// may reports whether rule i may match a text whose mask is m.
func (sc *hintScanner) may(i int, m uint64) bool {
	return i >= maxHintedRules || sc.hinted&(1<<i) == 0 || m&(1<<i) != 0
}

// anyMayMatch is the fast path: it reports false only when no rule can
// match s.
func anyMayMatch[T string | []byte](sc *hintScanner, s T) bool {
	return sc.always || scanHints(sc, s, true) != 0
}

// scanHints returns the mask of the hinted rules one of whose hints occurs
// in s; with first set it stops at the first hint found.
func scanHints[T string | []byte](sc *hintScanner, s T, first bool) uint64 {
	var m uint64
	colons, prev := 0, -1 // the colons of the current word, the last one's index
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !sc.first[c] {
			continue
		}
		if c == ':' && sc.colonRules != 0 && m&sc.colonRules == 0 {
			// Each byte between two colons is read once here.
			for j := prev + 1; j < i && prev >= 0; j++ {
				if isWordBreak(s[j]) {
					colons = 0
					break
				}
			}
			colons, prev = colons+1, i
			if colons >= colonWordMin {
				m |= sc.colonRules
				if first || m == sc.hinted {
					return m
				}
			}
		}
		if i+1 < len(s) {
			if d := s[i+1]; sc.second[c][d>>6]&(1<<(d&63)) == 0 {
				continue
			}
		}
		for _, h := range sc.byFirst[c] {
			if m&h.rules == h.rules || i+1+len(h.tail) > len(s) {
				continue
			}
			if equalFoldTail(s[i+1:i+1+len(h.tail)], h.tail) {
				m |= h.rules
				if first || m == sc.hinted {
					return m
				}
			}
		}
	}
	return m
}

// equalFoldTail reports whether s equals lower ignoring ASCII case; both
// have the same length.
func equalFoldTail[T string | []byte](s T, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
