package redact

import "strings"

// htmlInputRule redacts the value of an HTML form field holding a
// secret: an <input> whose name or id names one (IsSecretKey) or whose
// type is password (<input name="password" value="…">,
// <input type="password" value="…">). Its "<" may be a character
// reference or percent-encoded (&lt;input …&gt;, HTML shown as text):
// the rule then reads the web-decoded view (see webdecode.go).
var htmlInputRule = rule{label: "credential", find: findHTMLInputs,
	hints: []string{"<input", "&lt;input", "&#60;input", "&#x3c;input", "%3cinput"}}

// findHTMLInputs returns the spans of the secret values of the <input>
// tags of the line s, each tag read up to its ">" or the line's end.
func findHTMLInputs(s string) [][]int {
	var locs [][]int
	for i := 0; ; {
		j := indexFold(s[i:], "<input")
		if j < 0 {
			return locs
		}
		i += j + len("<input")
		if i < len(s) && !isHTMLSpace(s[i]) {
			continue // <inputs>, <input-x>
		}
		secret, vb, ve := false, -1, -1
		for {
			nb, ne, ab, ae, next, ok := htmlAttr(s, i)
			if !ok {
				i = next
				break
			}
			i = next
			switch name, val := strings.ToLower(s[nb:ne]), s[ab:ae]; name {
			case "name", "id":
				secret = secret || isSecretKey(val)
			case "type":
				secret = secret || strings.EqualFold(val, "password")
			case "value":
				vb, ve = ab, ae
			}
		}
		if secret && vb < ve {
			locs = append(locs, []int{vb, ve})
		}
	}
}

// htmlAttr reads the attribute at or after s[i] in a tag: its name
// s[nb:ne], its value s[ab:ae] (empty when it has none; quotes
// excluded), and where reading goes on. ok is false at the tag's end
// (">", "/>", a "<" opening another tag, or the text's end), next then
// being past the ">" or at the "<".
func htmlAttr(s string, i int) (nb, ne, ab, ae, next int, ok bool) {
	for i < len(s) && (isHTMLSpace(s[i]) || s[i] == '/') {
		i++
	}
	if i >= len(s) || s[i] == '<' {
		return 0, 0, 0, 0, i, false
	}
	if s[i] == '>' {
		return 0, 0, 0, 0, i + 1, false
	}
	nb = i
	for i < len(s) && !isHTMLSpace(s[i]) && strings.IndexByte("=>/<", s[i]) < 0 {
		i++
	}
	ne = i
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '=' {
		return nb, ne, i, i, i, true
	}
	i++
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		ab = i + 1
		ae = strings.IndexByte(s[ab:], q)
		if ae < 0 {
			return nb, ne, ab, len(s), len(s), true
		}
		ae += ab
		return nb, ne, ab, ae, ae + 1, true
	}
	ab = i
	for i < len(s) && !isHTMLSpace(s[i]) && s[i] != '>' {
		i++
	}
	return nb, ne, ab, i, i, true
}

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
