package index

import (
	"regexp"
	"strings"
)

// lineRule recognises one kind of declaration at the start of a line;
// the submatch named "name" is the declared name.
type lineRule struct {
	kind string
	re   *regexp.Regexp
}

// lineLang is the line-based extractor of one language.
type lineLang struct {
	rules   []lineRule
	imports []*regexp.Regexp // the first submatch is the import
	// docPrefix marks line-comment doc blocks above a declaration
	// ("///" for Rust, "//" for JS); block comments /** */ are read for
	// every brace language.
	docPrefix string
	// indent: blocks end by indentation (Python) instead of braces.
	indent bool
	// containers are kinds whose functions are methods.
	containers map[string]bool
}

var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true,
	"function": true, "new": true, "else": true, "do": true, "try": true, "throw": true, "synchronized": true, "super": true, "this": true}

var lineLangs = map[string]*lineLang{
	"python": {
		rules: []lineRule{
			{"class", regexp.MustCompile(`^\s*class\s+(?P<name>[A-Za-z_]\w*)`)},
			{"function", regexp.MustCompile(`^\s*(?:async\s+)?def\s+(?P<name>[A-Za-z_]\w*)\s*\(`)},
		},
		imports: []*regexp.Regexp{
			regexp.MustCompile(`^\s*from\s+([.\w]+)\s+import\s`),
			regexp.MustCompile(`^\s*import\s+([\w.]+)`),
		},
		docPrefix:  "#",
		indent:     true,
		containers: map[string]bool{"class": true},
	},
	"javascript": jsLang(),
	"typescript": jsLang(),
	"rust": {
		rules: []lineRule{
			{"function", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"\w+"\s+)?fn\s+(?P<name>[A-Za-z_]\w*)`)},
			{"struct", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?struct\s+(?P<name>[A-Za-z_]\w*)`)},
			{"enum", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?enum\s+(?P<name>[A-Za-z_]\w*)`)},
			{"trait", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?(?:unsafe\s+)?trait\s+(?P<name>[A-Za-z_]\w*)`)},
			{"impl", regexp.MustCompile(`^\s*(?:unsafe\s+)?impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?(?P<name>[A-Za-z_]\w*)`)},
			{"module", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?mod\s+(?P<name>[A-Za-z_]\w*)\s*\{`)},
			{"const", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?(?:const|static)\s+(?:mut\s+)?(?P<name>[A-Z_][A-Z0-9_]*)\s*:`)},
			{"type", regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?type\s+(?P<name>[A-Za-z_]\w*)`)},
		},
		imports: []*regexp.Regexp{
			regexp.MustCompile(`^\s*(?:pub\s+)?use\s+([\w:]+)`),
			regexp.MustCompile(`^\s*(?:pub\s+)?mod\s+(\w+)\s*;`),
		},
		docPrefix:  "///",
		containers: map[string]bool{"impl": true, "trait": true},
	},
	"java": {
		rules: []lineRule{
			{"class", regexp.MustCompile(`^\s*(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\s+)*(?:class|record)\s+(?P<name>[A-Za-z_]\w*)`)},
			{"interface", regexp.MustCompile(`^\s*(?:(?:public|protected|private|abstract|static|sealed)\s+)*@?interface\s+(?P<name>[A-Za-z_]\w*)`)},
			{"enum", regexp.MustCompile(`^\s*(?:(?:public|protected|private|static)\s+)*enum\s+(?P<name>[A-Za-z_]\w*)`)},
			{"function", regexp.MustCompile(`^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default)\s+)*(?:<[^>]+>\s+)?(?:[\w.$]+(?:<[^()]*>)?(?:\[\])*\s+)?(?P<name>[A-Za-z_]\w*)\s*\([^;]*$`)},
		},
		imports: []*regexp.Regexp{
			regexp.MustCompile(`^\s*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;`),
		},
		containers: map[string]bool{"class": true, "interface": true, "enum": true},
	},
}

func jsLang() *lineLang {
	return &lineLang{
		rules: []lineRule{
			{"function", regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?P<name>[A-Za-z_$][\w$]*)\s*[<(]`)},
			{"class", regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(?P<name>[A-Za-z_$][\w$]*)`)},
			{"interface", regexp.MustCompile(`^\s*(?:export\s+)?(?:declare\s+)?interface\s+(?P<name>[A-Za-z_$][\w$]*)`)},
			{"type", regexp.MustCompile(`^\s*(?:export\s+)?(?:declare\s+)?type\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=`)},
			{"enum", regexp.MustCompile(`^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(?P<name>[A-Za-z_$][\w$]*)`)},
			{"function", regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`)},
			{"method", regexp.MustCompile(`^\s+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*\*?(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^;]*\)\s*(?::\s*[^{;]+)?\{\s*$`)},
		},
		imports: []*regexp.Regexp{
			regexp.MustCompile(`^\s*import\s+(?:type\s+)?(?:[^'"]*\s+from\s+)?['"]([^'"]+)['"]`),
			regexp.MustCompile(`^\s*export\s+[^'"]*\s+from\s+['"]([^'"]+)['"]`),
			regexp.MustCompile(`require\(\s*['"]([^'"]+)['"]\s*\)`),
		},
		docPrefix:  "//",
		containers: map[string]bool{"class": true, "interface": true},
	}
}

// extractLines runs the line-based extractor of the file's language.
func extractLines(f *File) {
	lang := lineLangs[f.Lang]
	if lang == nil {
		return
	}
	lines := strings.Split(string(f.content), "\n")
	type container struct {
		name string
		end  int
	}
	var outer []container
	for i, l := range lines {
		for _, re := range lang.imports {
			if m := re.FindStringSubmatch(l); m != nil {
				f.Imports = append(f.Imports, m[1])
				break
			}
		}
		for _, r := range lang.rules {
			m := r.re.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			name := m[r.re.SubexpIndex("name")]
			// Patterns without a keyword (JS methods, Java methods) also
			// match calls and statements such as "if (x) {".
			if controlWords[name] && (r.kind == "method" || f.Lang == "java") {
				continue
			}
			for len(outer) > 0 && outer[len(outer)-1].end < i+1 {
				outer = outer[:len(outer)-1]
			}
			s := Symbol{Name: name, Kind: r.kind, Line: i + 1, Signature: signatureLine(l, lang.indent)}
			if lang.indent {
				s.EndLine = indentEnd(lines, i)
				s.Doc = pyDocstring(lines, i)
			} else {
				s.EndLine = braceEnd(lines, i)
				s.Doc = commentAbove(lines, i, lang.docPrefix)
			}
			if s.Doc == "" && lang.indent {
				s.Doc = commentAbove(lines, i, lang.docPrefix)
			}
			if len(outer) > 0 {
				s.Parent = outer[len(outer)-1].name
				if s.Kind == "function" {
					s.Kind = "method"
				}
			} else if s.Kind == "method" {
				// A method pattern outside any class is a call or a block.
				break
			}
			f.Symbols = append(f.Symbols, s)
			if lang.containers[s.Kind] {
				outer = append(outer, container{s.Name, s.EndLine})
			}
			break
		}
	}
}

// signatureLine is a declaration's first line without its body.
func signatureLine(l string, indent bool) string {
	s := strings.TrimSpace(l)
	if indent {
		s = strings.TrimSuffix(s, ":")
	} else if i := strings.LastIndex(s, "{"); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.TrimSuffix(s, ";")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// braceEnd finds the line closing the first brace opened at or after
// line i (strings and comments are not understood); a declaration
// without a body ends on its own line.
func braceEnd(lines []string, i int) int {
	depth, opened := 0, false
	for j := i; j < len(lines) && j < i+5000; j++ {
		l := lines[j]
		if !opened && j > i && strings.HasSuffix(strings.TrimSpace(lines[j-1]), ";") {
			return j
		}
		for _, r := range l {
			switch r {
			case '{':
				depth++
				opened = true
			case '}':
				depth--
			}
		}
		if opened && depth <= 0 {
			return j + 1
		}
		if !opened && j-i > 3 {
			return i + 1
		}
	}
	return i + 1
}

// indentEnd is the last line of the indented block that starts at line i.
func indentEnd(lines []string, i int) int {
	base := indentOf(lines[i])
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if indentOf(lines[j]) <= base {
			break
		}
		end = j + 1
	}
	return end
}

func indentOf(l string) int {
	n := 0
	for _, r := range l {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// commentAbove reads the comment block right above line i: a /** … */
// block, or consecutive lines starting with prefix.
func commentAbove(lines []string, i int, prefix string) string {
	j := i - 1
	for j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "@") { // annotations, decorators
		j--
	}
	if j < 0 {
		return ""
	}
	last := strings.TrimSpace(lines[j])
	var parts []string
	if strings.HasSuffix(last, "*/") {
		for k := j; k >= 0 && k > j-50; k-- {
			t := strings.TrimSpace(lines[k])
			parts = append([]string{strings.TrimLeft(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "/**"), "/*"), "*/"), "* ")}, parts...)
			if strings.HasPrefix(t, "/*") {
				return firstSentence(strings.Join(parts, "\n"))
			}
		}
		return ""
	}
	if prefix == "" {
		return ""
	}
	for k := j; k >= 0 && strings.HasPrefix(strings.TrimSpace(lines[k]), prefix); k-- {
		t := strings.TrimSpace(lines[k])
		if prefix == "//" && strings.HasPrefix(t, "///") {
			t = t[1:]
		}
		parts = append([]string{strings.TrimSpace(strings.TrimPrefix(t, prefix))}, parts...)
	}
	return firstSentence(strings.Join(parts, "\n"))
}

// pyDocstring reads the docstring on the lines after a def or class.
func pyDocstring(lines []string, i int) string {
	for j := i + 1; j < len(lines) && j < i+4; j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(t, q) {
				body := strings.TrimPrefix(t, q)
				if k := strings.Index(body, q); k >= 0 {
					return firstSentence(body[:k])
				}
				parts := []string{body}
				for k := j + 1; k < len(lines) && k < j+30; k++ {
					l := strings.TrimSpace(lines[k])
					if e := strings.Index(l, q); e >= 0 {
						parts = append(parts, l[:e])
						break
					}
					parts = append(parts, l)
				}
				return firstSentence(strings.Join(parts, "\n"))
			}
		}
		return ""
	}
	return ""
}
