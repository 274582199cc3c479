package codex

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Encode serialises s into a canonical RL4-CODEX v1.2 payload:
// normalise values into tokens → sort tokens alphabetically (byte order)
// within DATA, CONTEXT, DECISIONS and OPTIONAL, keep TIMELINE in field order
// and INSIGHTS in the given (recency) order → join with " | " → one block per
// line in canonical order → add checksum=sum#<16 hex> to OPTIONAL → wrap in
// the header and closing tag → validate.
//
// The checksum is the first 16 hex digits of SHA-256 over the text from
// "<DATA>" through "</DECISIONS>" inclusive, exactly as emitted (blocks
// joined by "\n"); OPTIONAL is left out because it carries the checksum.
// Since OPTIONAL always holds the checksum it is never empty, so it is never
// dropped.
//
// Encode is deterministic: the same State gives byte-identical output. It
// emits nothing on error: a State field that cannot be serialised gives a
// *FieldError (errors joined, wrapping ErrInvalidState), and a payload that
// fails Validate gives a *PayloadError (e.g. ErrHashViolation for a raw path
// in a value, ErrSizeExceeded). Every error wraps ErrInvalidPayload.
func Encode(s State) (string, error) {
	e := &encoder{}
	blocks := e.blocks(s)
	if len(e.errs) > 0 {
		return "", fmt.Errorf("could not encode RL4-CODEX payload: %w", errors.Join(e.errs...))
	}
	var b strings.Builder
	for i, name := range requiredBlocks() {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeBlock(&b, name, blocks[i])
	}
	span := b.String()
	opt := append(blocks[5], "checksum="+bodyChecksum(span))
	sort.Strings(opt)

	var out strings.Builder
	out.Grow(len(span) + 128)
	out.WriteString(`<RL4-CODEX v="` + Version + `">` + "\n")
	out.WriteString(span)
	out.WriteByte('\n')
	writeBlock(&out, BlockOptional, opt)
	out.WriteString("\n" + endRoot + "\n")
	payload := out.String()
	if diags := Validate(payload); HasErrors(diags) {
		return "", fmt.Errorf("could not encode RL4-CODEX payload: %w", &PayloadError{Diagnostics: diags})
	}
	return payload, nil
}

func writeBlock(b *strings.Builder, name string, tokens []string) {
	b.WriteString("<" + name + ">")
	b.WriteString(strings.Join(tokens, " | "))
	b.WriteString("</" + name + ">")
}

// encoder turns State fields into tokens, collecting field errors.
type encoder struct {
	errs []error
}

func (e *encoder) fail(field, value, reason string, err error) {
	e.errs = append(e.errs, &FieldError{Field: field, Value: value, Reason: reason, Err: err})
}

// blocks returns the tokens of DATA, TIMELINE, CONTEXT, INSIGHTS, DECISIONS
// and OPTIONAL (without checksum), sorted where the format says so.
func (e *encoder) blocks(s State) [6][]string {
	out := [6][]string{e.data(s), e.timeline(s), e.context(s.Context), e.insights(s.Insights),
		e.decisions(s.Decisions), e.optional(s.Optional)}
	for _, i := range []int{0, 2, 4, 5} {
		sort.Strings(out[i])
	}
	return out
}

func (e *encoder) data(s State) []string {
	var t []string
	if id, ok := e.identifier("ProjectHash", s.ProjectHash, "proj"); ok {
		t = append(t, id)
	}
	if m, ok := e.atom("Mode", s.Mode); ok {
		switch m = lowerASCII(m); m {
		case "strict", "normal", "flexible", "exploratory":
			t = append(t, "mode="+m)
		default:
			e.fail("Mode", s.Mode, "must be strict, normal, flexible or exploratory", nil)
		}
	}
	t = e.scalarToken(t, "phase", "Phase", s.Phase)
	t = e.scalarToken(t, "maturity", "Maturity", s.Maturity)
	if s.Tasks != nil {
		t = e.tasks(t, *s.Tasks)
	}
	if s.CogHealth != nil {
		if f := *s.CogHealth; !(f >= 0 && f <= 1) {
			e.fail("CogHealth", formatNumber(f), "must be in [0,1]", nil)
		} else {
			t = append(t, "cog.health="+formatNumber(f))
		}
	}
	seen := map[string]bool{}
	for i, k := range s.KPIs {
		field := fmt.Sprintf("KPIs[%d]", i)
		if !keyName(k.Name) {
			e.fail(field+".Name", k.Name, "must be [A-Za-z0-9_.-]+", nil)
			continue
		}
		if seen[k.Name] {
			e.fail(field+".Name", k.Name, "repeats an earlier KPI name", nil)
			continue
		}
		seen[k.Name] = true
		v, ok := e.atom(field+".Value", k.Value)
		if !ok {
			v = string(Unknown)
		}
		t = append(t, "kpi:"+k.Name+"="+v)
	}
	return t
}

func (e *encoder) tasks(t []string, tk StateTasks) []string {
	if tk.Active < 0 {
		e.fail("Tasks.Active", fmt.Sprint(tk.Active), "must be >= 0", nil)
		return t
	}
	if tk.Total == nil {
		return append(t, fmt.Sprintf("tasks=%d", tk.Active))
	}
	if *tk.Total < 0 {
		e.fail("Tasks.Total", fmt.Sprint(*tk.Total), "must be >= 0", nil)
		return t
	}
	return append(t, fmt.Sprintf("tasks=%d.active/%d.total", tk.Active, *tk.Total))
}

func (e *encoder) timeline(s State) []string {
	var t []string
	if s.Cycles != nil {
		if *s.Cycles < 0 {
			e.fail("Cycles", fmt.Sprint(*s.Cycles), "must be >= 0", nil)
		} else {
			t = append(t, fmt.Sprintf("cycles=%d", *s.Cycles))
		}
	}
	t = e.listToken(t, "actions", "Actions", s.Actions, "+")
	t = e.listToken(t, "bursts", "Bursts", s.Bursts, ",")
	t = e.listToken(t, "droughts", "Droughts", s.Droughts, ",")
	t = e.identifierList(t, "hotspots", "Hotspots", s.Hotspots)
	t = e.listToken(t, "anomalies", "Anomalies", s.Anomalies, ",")
	return t
}

func (e *encoder) context(c StateContext) []string {
	var t []string
	t = e.scalarToken(t, "type", "Context.Type", c.Type)
	if items := e.list("Context.Stack", c.Stack); len(items) > 0 {
		t = append(t, "stack=hash("+strings.Join(items, ",")+")")
	}
	t = e.scalarToken(t, "devDNA", "Context.DevDNA", c.DevDNA)
	t = e.listToken(t, "constraints", "Context.Constraints", c.Constraints, ",")
	t = e.listToken(t, "success", "Context.Success", c.Success, ",")
	t = e.scalarToken(t, "reasoning", "Context.Reasoning", c.Reasoning)
	t = e.scalarToken(t, "risk", "Context.Risk", c.Risk)
	return t
}

func (e *encoder) insights(in []StateInsight) []string {
	var t []string
	for i, ins := range in {
		field := fmt.Sprintf("Insights[%d]", i)
		kind := lowerASCII(strings.TrimSpace(ins.Kind))
		switch InsightKind(kind) {
		case KindPattern, KindTrend, KindForecast, KindCorrelation:
		default:
			e.fail(field+".Kind", ins.Kind, "must be pattern, trend, forecast or correlation", nil)
			continue
		}
		label, ok := e.atom(field+".Label", ins.Label)
		if !ok {
			e.fail(field+".Label", ins.Label, "must not be empty", nil)
			continue
		}
		var args []string
		if ins.Weight != nil {
			args = append(args, "weight="+e.unit(field+".Weight", *ins.Weight, 0))
		}
		if ins.Conf != nil {
			args = append(args, "conf="+e.unit(field+".Conf", *ins.Conf, 0))
		}
		if ins.Signal != nil {
			args = append(args, e.unit(field+".Signal", *ins.Signal, -1))
		}
		tok := kind + ":" + label
		if len(args) > 0 {
			tok += "(" + strings.Join(args, ",") + ")"
		}
		t = append(t, tok)
	}
	return t
}

// unit formats a number in [lo,1]; a signal (lo = -1) always carries a sign.
func (e *encoder) unit(field string, f, lo float64) string {
	if !(f >= lo && f <= 1) {
		e.fail(field, formatNumber(f), fmt.Sprintf("must be in [%s,1]", formatNumber(lo)), nil)
		return ""
	}
	s := formatNumber(f)
	if lo < 0 && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func (e *encoder) decisions(d StateDecisions) []string {
	var t []string
	for i, a := range d.ADRs {
		if id, ok := e.identifier(fmt.Sprintf("Decisions.ADRs[%d]", i), a, "adr"); ok {
			t = append(t, id)
		}
	}
	t = e.listToken(t, "drift", "Decisions.Drift", d.Drift, ",")
	t = e.listToken(t, "anomaly", "Decisions.Anomaly", d.Anomaly, ",")
	t = e.listToken(t, "adjust", "Decisions.Adjust", d.Adjust, ",")
	if raw := strings.TrimSpace(string(d.Integrity)); raw != "" && Integrity(upperASCII(raw)) != IntegrityUnknown {
		if in, ok := parseIntegrity(raw); ok {
			t = append(t, "integrity="+lowerASCII(string(in)))
		} else {
			e.fail("Decisions.Integrity", raw, "must be GREEN, AMBER, RED or UNKNOWN", nil)
		}
	}
	return t
}

func (e *encoder) optional(o StateOptional) []string {
	var t []string
	t = e.scalarToken(t, "vendor", "Optional.Vendor", o.Vendor)
	t = e.scalarToken(t, "encoder", "Optional.Encoder", o.Encoder)
	t = e.scalarToken(t, "policy", "Optional.Policy", o.Policy)
	if id, ok := e.identifier("Optional.Session", o.Session, ""); ok {
		t = append(t, "session="+id)
	}
	for k, v := range o.Ext {
		field := "Optional.Ext[" + k + "]"
		if !keyName(k) {
			e.fail(field, k, "key must be [A-Za-z0-9_.-]+", nil)
			continue
		}
		norm := normalizeAtom(v)
		if !atomChars(norm) {
			e.fail(field, v, "value holds a separator or a character outside [A-Za-z0-9_.-/@~%#]", nil)
			continue
		}
		t = append(t, "ext."+k+"="+norm)
	}
	return t
}

// scalarToken appends key=value when value is set.
func (e *encoder) scalarToken(t []string, key, field, value string) []string {
	if v, ok := e.atom(field, value); ok {
		return append(t, key+"="+v)
	}
	return t
}

// listToken appends key=a<sep>b… when the list has items.
func (e *encoder) listToken(t []string, key, field string, items []string, sep string) []string {
	if norm := e.list(field, items); len(norm) > 0 {
		return append(t, key+"="+strings.Join(norm, sep))
	}
	return t
}

// identifierList appends key=id,id… after checking each item is a hash.
func (e *encoder) identifierList(t []string, key, field string, items []string) []string {
	var ids []string
	for i, it := range items {
		if id, ok := e.identifier(fmt.Sprintf("%s[%d]", field, i), it, ""); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		t = append(t, key+"="+strings.Join(ids, ","))
	}
	return t
}

// list normalises every item; an empty item is an error.
func (e *encoder) list(field string, items []string) []string {
	out := make([]string, 0, len(items))
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		v, ok := e.atom(f, it)
		if !ok {
			e.fail(f, it, "list items must not be empty or UNKNOWN", nil)
			continue
		}
		out = append(out, v)
	}
	return out
}

// identifier checks that value is a hashed symbol (in namespace ns when ns
// is not empty). ok is false when value is empty or invalid.
func (e *encoder) identifier(field, value, ns string) (string, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", false
	}
	got, _, _ := cutByte(v, '#')
	if !IsHashID(v) || (ns != "" && got != ns) {
		want := "namespace#hex"
		if ns != "" {
			want = ns + "#hex"
		}
		e.fail(field, value, "must be a hashed identifier "+want+" (see HashID)", ErrHashViolation)
		return "", false
	}
	return v, true
}

// atom normalises a scalar value. ok is false when the value is empty or
// UNKNOWN (the token is then left out) or invalid (an error is recorded).
func (e *encoder) atom(field, value string) (string, bool) {
	v := normalizeAtom(value)
	if v == "" || v == string(Unknown) {
		return "", false
	}
	if !atomChars(v) {
		e.fail(field, value, "holds a separator or a character outside [A-Za-z0-9_.-/@~%#]", nil)
		return "", false
	}
	return v, true
}

// normalizeAtom trims a value and joins inner whitespace runs with '-'.
func normalizeAtom(v string) string {
	return strings.Join(strings.Fields(v), "-")
}

// atomChars reports whether v uses only characters that cannot break token
// structure.
func atomChars(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isLetter(c) || (c >= '0' && c <= '9') {
			continue
		}
		switch c {
		case '_', '.', '-', '/', '@', '~', '%', '#':
			continue
		}
		return false
	}
	return true
}

// keyName reports whether k is a non-empty [A-Za-z0-9_.-]+ name.
func keyName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}
