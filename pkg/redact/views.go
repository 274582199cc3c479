package redact

import "strings"

// escViews are a text's other views, each mapped straight back to the
// text: its decoded views (decoded, then again while escapes remain, up
// to maxEscapeDepth), its joined view (see joinedView) and its
// web-decoded view (see decodeWeb), made once for the rules that read
// the same text: made is set once they are.
type escViews struct {
	made  bool
	views []*escView
}

// of returns the views of s, making them unless made.
func (vs *escViews) of(s string) []*escView {
	if vs.made {
		return vs.views
	}
	vs.made = true
	var prev *escView
	for t := s; len(vs.views) < maxEscapeDepth; {
		v := decodeEscapes(t)
		if v == nil {
			break
		}
		t = v.text
		if prev != nil {
			v.mapThrough(prev)
		}
		vs.views = append(vs.views, v)
		prev = v
	}
	vs.addStrings(s, nil, 1)
	if v := joinedView(s); v != nil {
		vs.views = append(vs.views, v)
	}
	if v := decodeWeb(s); v != nil {
		vs.views = append(vs.views, v)
	}
	return vs.views
}

// addStrings adds a view of the content of each double-quoted string of
// t (a view of the text, parent; nil: the text) holding an escape,
// decoded, as if it were a text of its own (a log line's message
// holding YAML or JSON: its first and last lines are the string's, not
// the line around it), its joined view, and the same for the strings
// inside, depth strings deep at most (maxEscapeDepth).
func (vs *escViews) addStrings(t string, parent *escView, depth int) {
	if depth > maxEscapeDepth || strings.IndexByte(t, '\\') < 0 {
		return
	}
	for i := 0; i < len(t); {
		j := strings.IndexByte(t[i:], '"')
		if j < 0 {
			return
		}
		a := i + j + 1
		e := a // the closing quote, or the line's end (a JSON string is one line)
		for e < len(t) && t[e] != '"' && t[e] != '\n' {
			if t[e] == '\\' {
				e++
			}
			e++
		}
		if e >= len(t) || t[e] != '"' {
			i = e // unclosed: no quote after it on its line
			continue
		}
		i = e + 1
		v := decodeEscapes(t[a:e])
		if v == nil {
			continue
		}
		for k := range v.from {
			v.from[k] += int32(a)
			v.to[k] += int32(a)
		}
		if parent != nil {
			v.mapThrough(parent)
		}
		vs.views = append(vs.views, v)
		if jv := joinedView(v.text); jv != nil {
			jv.mapThrough(v)
			vs.views = append(vs.views, jv)
		}
		vs.addStrings(v.text, v, depth+1)
	}
}

// mapThrough maps v, a view of parent's text, to parent's own text.
func (v *escView) mapThrough(parent *escView) {
	for i := range v.from {
		v.from[i], v.to[i] = parent.from[v.from[i]], parent.to[v.to[i]-1]
	}
}

// span maps the span [a, b) of v's text back to its text. In a decoded
// view it ends before a double quote that was no escape (the string holding
// the value closes there: {"log":"…\n  - *p"} gives "*p", not *p"}), or
// is nil when it starts with one.
func (v *escView) span(a, b int) []int {
	if v.decoded {
		for k := a; k < b; k++ {
			if v.text[k] == '"' && v.to[k]-v.from[k] == 1 {
				b = k
				break
			}
		}
		if a >= b {
			return nil
		}
	}
	return []int{int(v.from[a]), int(v.to[b-1])}
}

// escapedSpans returns the spans find gives in views, mapped back to
// their text. ok tests a view's text before find runs on it. A line
// rule (lines) reads each line of a view apart, as it reads the text's:
// a decoded "\n" ends a line.
func escapedSpans(views []*escView, lines bool, ok func(string) bool, find func(string) [][]int) [][]int {
	var locs [][]int
	for _, v := range views {
		for ls := 0; ls < len(v.text); {
			le := len(v.text)
			if lines {
				le = min(lineEnd(v.text, ls)+1, len(v.text))
			}
			if t := v.text[ls:le]; ok(t) {
				for _, l := range find(t) {
					if l[0] < 0 || l[0] >= l[1] {
						continue
					}
					if sp := v.span(ls+l[0], ls+l[1]); sp != nil {
						locs = append(locs, sp)
					}
				}
			}
			ls = le
		}
	}
	return locs
}
