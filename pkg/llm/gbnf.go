package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrGrammar: a schema uses a construct the GBNF generator does not cover.
var ErrGrammar = errors.New("schema cannot be expressed as a GBNF grammar")

// GBNF returns a llama.cpp grammar (GBNF) that accepts exactly the JSON
// documents of the schema's shape: objects with their declared properties
// in declaration order (required ones always, optional ones when present),
// arrays with minItems, strings (with enum/const), numbers, integers,
// booleans, null, and free-form values where the schema has no type. It
// returns an error wrapping ErrGrammar for constructs it does not cover
// (anyOf, oneOf, $ref, patterns); the caller then sends the schema itself.
func (s *Schema) GBNF() (string, error) {
	g := &grammar{rules: map[string]string{}}
	root, err := g.value("root", s.doc)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrGrammar, s.name, err)
	}
	if root != "root" {
		g.rules["root"] = root
	}
	g.primitives()
	names := make([]string, 0, len(g.rules))
	for n := range g.rules {
		if n != "root" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "root ::= %s\n", g.rules["root"])
	for _, n := range names {
		fmt.Fprintf(&b, "%s ::= %s\n", n, g.rules[n])
	}
	return b.String(), nil
}

type grammar struct {
	rules map[string]string
}

// value returns the grammar expression for schema n; name is the rule name
// to use when the expression deserves its own rule.
func (g *grammar) value(name string, n map[string]any) (string, error) {
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "pattern", "not", "if", "patternProperties"} {
		if _, ok := n[k]; ok {
			return "", fmt.Errorf("%s: %q is not supported", name, k)
		}
	}
	if c, ok := n["const"]; ok {
		return literal(c)
	}
	if enum, ok := n["enum"].([]any); ok {
		alts := make([]string, 0, len(enum))
		for _, e := range enum {
			l, err := literal(e)
			if err != nil {
				return "", err
			}
			alts = append(alts, l)
		}
		return "(" + strings.Join(alts, " | ") + ")", nil
	}
	types, err := typesOf(n)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(types) == 0 {
		return "value", nil
	}
	alts := make([]string, 0, len(types))
	for _, t := range types {
		var e string
		switch t {
		case "object":
			e, err = g.object(name, n)
		case "array":
			e, err = g.array(name, n)
		case "string", "number", "integer", "boolean", "null":
			e = t
		default:
			err = fmt.Errorf("%s: unknown type %q", name, t)
		}
		if err != nil {
			return "", err
		}
		alts = append(alts, e)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return "(" + strings.Join(alts, " | ") + ")", nil
}

func typesOf(n map[string]any) ([]string, error) {
	switch t := n["type"].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("type %v is not a string", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %v is not a string or list", n["type"])
}

// object builds the rule of an object schema. Properties come in
// declaration order; each optional one may be left out.
func (g *grammar) object(name string, n map[string]any) (string, error) {
	props, _ := n["properties"].(map[string]any)
	if len(props) == 0 {
		return "object", nil // free-form object
	}
	order, err := propertyOrder(n)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	required := map[string]bool{}
	if list, _ := n["required"].([]any); list != nil {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	kv := make([]string, len(order))
	for i, p := range order {
		ps, ok := props[p].(map[string]any)
		if !ok {
			return "", fmt.Errorf("%s.%s: property schema is not an object", name, p)
		}
		v, err := g.value(name+"-"+ruleName(p), ps)
		if err != nil {
			return "", err
		}
		key, _ := literal(p)
		kv[i] = key + " ws \":\" ws " + v
	}
	// rest_i: the members after i, each preceded by a comma.
	rest := make([]string, len(order)+1)
	for i := len(order) - 1; i >= 0; i-- {
		e := "\",\" ws " + kv[i]
		if !required[order[i]] {
			e = "(" + e + ")?"
		}
		if rest[i+1] != "" {
			e += " " + rest[i+1]
		}
		rule := name + "-rest" + strconv.Itoa(i)
		g.rules[rule] = e
		rest[i] = rule
	}
	// The first member present: any optional prefix may be skipped, up to
	// and including the first required member.
	var alts []string
	allOptional := true
	for i := range order {
		alt := kv[i]
		if rest[i+1] != "" {
			alt += " " + rest[i+1]
		}
		alts = append(alts, alt)
		if required[order[i]] {
			allOptional = false
			break
		}
	}
	body := "(" + strings.Join(alts, " | ") + ")"
	if allOptional {
		body += "?"
	}
	g.rules[name] = "\"{\" ws " + body + " ws \"}\""
	return name, nil
}

// propertyOrder is the order of an object's properties in the grammar:
// the "x-order" list when the schema gives one, then the remaining names
// sorted (JSON objects decoded into maps keep no order).
func propertyOrder(n map[string]any) ([]string, error) {
	props, _ := n["properties"].(map[string]any)
	seen := map[string]bool{}
	var order []string
	if xo, ok := n["x-order"].([]any); ok {
		for _, k := range xo {
			s, isStr := k.(string)
			if !isStr {
				return nil, fmt.Errorf("x-order entry %v is not a string", k)
			}
			if _, ok := props[s]; ok && !seen[s] {
				order = append(order, s)
				seen[s] = true
			}
		}
	}
	var rest []string
	for k := range props {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(order, rest...), nil
}

func (g *grammar) array(name string, n map[string]any) (string, error) {
	items, _ := n["items"].(map[string]any)
	item := "value"
	if items != nil {
		var err error
		if item, err = g.value(name+"-item", items); err != nil {
			return "", err
		}
	}
	min := 0
	if f, ok := n["minItems"].(float64); ok && f > 0 {
		min = int(f)
	}
	var e string
	switch min {
	case 0:
		e = "\"[\" ws (" + item + " (\",\" ws " + item + ")*)? ws \"]\""
	default:
		e = "\"[\" ws " + item + strings.Repeat(" \",\" ws "+item, min-1) + " (\",\" ws " + item + ")* ws \"]\""
	}
	rule := name + "-array"
	g.rules[rule] = e
	return rule, nil
}

// literal is a GBNF terminal matching the JSON encoding of v.
func literal(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return strconv.Quote(string(raw)), nil
}

func ruleName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// primitives adds the JSON terminals every grammar uses.
func (g *grammar) primitives() {
	g.rules["ws"] = `[ \t\n]*`
	g.rules["string"] = `"\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}) )* "\""`
	g.rules["number"] = `"-"? ([0-9] | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?`
	g.rules["integer"] = `"-"? ([0-9] | [1-9] [0-9]*)`
	g.rules["boolean"] = `("true" | "false")`
	g.rules["null"] = `"null"`
	g.rules["value"] = `(object | array | string | number | boolean | null)`
	g.rules["object"] = `"{" ws (string ws ":" ws value ("," ws string ws ":" ws value)*)? ws "}"`
	g.rules["array"] = `"[" ws (value ("," ws value)*)? ws "]"`
}
