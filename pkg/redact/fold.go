package redact

// anyMayMatch is the fast path: it reports false only when no rule can
// match s, because every rule has hints and none of them occurs in s.
func anyMayMatch[T string | []byte](rules []rule, s T, indexByte func(T, byte) int) bool {
	for i := range rules {
		if mayMatch(rules[i].hints, s, indexByte) {
			return true
		}
	}
	return false
}

// mayMatch reports false only when hints is not empty and none of them
// occurs in s.
func mayMatch[T string | []byte](hints []string, s T, indexByte func(T, byte) int) bool {
	if len(hints) == 0 {
		return true
	}
	for _, h := range hints {
		if containsFold(s, h, indexByte) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains lower, a non-empty lower-case
// ASCII string, ignoring ASCII case. indexByte is strings.IndexByte or
// bytes.IndexByte, which scan much faster than a byte loop.
func containsFold[T string | []byte](s T, lower string, indexByte func(T, byte) int) bool {
	n := len(lower)
	firsts := [2]byte{lower[0], upper(lower[0])}
	for k, f := range firsts {
		if k == 1 && f == firsts[0] {
			break
		}
		for i := 0; i+n <= len(s); i++ {
			j := indexByte(s[i:], f)
			if j < 0 {
				break
			}
			i += j
			if i+n > len(s) {
				break
			}
			if equalFoldTail(s[i+1:i+n], lower[1:]) {
				return true
			}
		}
	}
	return false
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
