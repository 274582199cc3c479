package events

// topMembers calls fn with the raw key (without its quotes, escapes kept)
// and the raw value of each member of the object data holds, in order,
// until fn returns false. data must be valid JSON (json.Valid): the
// scanner only follows strings and brackets, it does not check them. ok is
// false when data is not an object.
func topMembers(data []byte, fn func(key, value []byte) bool) (ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		end := stringEnd(data, i)
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // the colon
		start := i
		i = valueEnd(data, i)
		if !fn(key, data[start:i]) {
			return true
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string starting at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// valueEnd returns the index after the value starting at data[i].
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\r', '\n', ',', '}', ']':
			return i
		}
	}
	return i
}

// plainKey reports whether key (raw, without quotes) has no escape and no
// byte outside ASCII, so that its bytes are its text and only ASCII case
// folding can match it to another key.
func plainKey(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
