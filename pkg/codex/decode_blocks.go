package codex

import "strings"

// data parses the DATA block (decoder spec §4.1).
func (d *decoder) data(tokens []token) {
	pc := &d.st.ProjectContext
	for _, t := range tokens {
		switch k := eqKey(t); {
		case t.op == 0 && standsAlone(BlockData, t.text):
			d.scalar(BlockData, "proj", t, &pc.ProjectHash, t.text)
		case k == "proj":
			if !IsHashID(t.value) {
				d.malformed(t, "proj must be one hashed identifier")
				continue
			}
			d.scalar(BlockData, "proj", t, &pc.ProjectHash, t.value)
		case k == "mode":
			m := lowerASCII(t.value)
			switch m {
			case "strict", "normal", "flexible", "exploratory":
				d.scalar(BlockData, k, t, &pc.Mode, m)
			default:
				d.malformed(t, "mode must be strict, normal, flexible or exploratory")
			}
		case k == "phase":
			d.scalar(BlockData, k, t, &pc.Phase, t.value)
		case k == "maturity":
			d.scalar(BlockData, k, t, &pc.Maturity, t.value)
		case k == "tasks":
			d.tasks(t)
		case k == "cog.health":
			f, ok := Value(t.value).Float()
			if !ok || f < 0 || f > 1 {
				d.malformed(t, "cog.health must be a number in [0,1]")
				continue
			}
			d.scalar(BlockData, k, t, &pc.CogHealth, t.value)
		case t.op == ':' && lowerASCII(t.key) == "kpi":
			d.kpi(t)
		default:
			d.unknown(BlockData, t)
		}
	}
}

// tasks parses tasks=N, tasks=N/M or tasks=N.active/M.total.
func (d *decoder) tasks(t token) {
	active, total, hasTotal := cutByte(t.value, '/')
	if hasTotal {
		active = strings.TrimSuffix(active, ".active")
		total = strings.TrimSuffix(total, ".total")
	}
	if !isNumber(active, false, false) || (hasTotal && !isNumber(total, false, false)) {
		d.malformed(t, "tasks must be N, N/M or N.active/M.total")
		return
	}
	if !d.claim(BlockData, "tasks", t) {
		return
	}
	d.st.ProjectContext.TaskLoad.Active = Value(active)
	if hasTotal {
		d.st.ProjectContext.TaskLoad.Total = Value(total)
	}
}

// kpi parses kpi:<name>=<value>; an empty value is UNKNOWN.
func (d *decoder) kpi(t token) {
	name, val, ok := cutByte(t.value, '=')
	if !ok || name == "" {
		d.malformed(t, "kpi must be kpi:<name>=<value>")
		return
	}
	if !d.claim(BlockData, "kpi:"+name, t) {
		return
	}
	v := Unknown
	if val != "" {
		v = Value(val)
	}
	pc := &d.st.ProjectContext
	if pc.KPIs == nil {
		pc.KPIs = List[KPI]{}
	}
	pc.KPIs = append(pc.KPIs, KPI{Name: name, Value: v})
}

// timeline parses the TIMELINE block (decoder spec §4.2).
func (d *decoder) timeline(tokens []token) {
	tc := &d.st.TemporalContext
	for _, t := range tokens {
		switch k := eqKey(t); k {
		case "cycles":
			if !isNumber(t.value, false, false) {
				d.malformed(t, "cycles must be a whole number")
				continue
			}
			d.scalar(BlockTimeline, k, t, &tc.Cycles, t.value)
		case "actions":
			appendList(&tc.Actions, t.value)
		case "bursts":
			appendList(&tc.Bursts, t.value)
		case "droughts":
			appendList(&tc.Droughts, t.value)
		case "hotspots":
			appendList(&tc.Hotspots, t.value)
		case "anomalies":
			appendList(&tc.Anomalies, t.value)
		default:
			d.unknown(BlockTimeline, t)
		}
	}
	if tc.Cycles.IsUnknown() {
		d.warn(CodeTimelineMissingCycles, "", "TIMELINE has no valid cycles token; cycles is UNKNOWN")
	}
}

// context parses the CONTEXT block (decoder spec §4.3).
func (d *decoder) context(tokens []token) {
	pc, dp := &d.st.ProjectContext, &d.st.DeveloperProfile
	for _, t := range tokens {
		switch k := eqKey(t); k {
		case "type":
			d.scalar(BlockContext, k, t, &pc.ProjectType, t.value)
		case "devdna":
			d.scalar(BlockContext, k, t, &dp.DevDNA, t.value)
		case "reasoning":
			d.scalar(BlockContext, k, t, &dp.ReasoningStyle, t.value)
		case "risk":
			d.scalar(BlockContext, k, t, &dp.RiskProfile, t.value)
		case "constraints":
			appendList(&pc.Constraints, t.value)
		case "success":
			appendList(&pc.SuccessCriteria, t.value)
		case "stack":
			d.stack(t)
		case "project":
			d.project(t)
		case "":
			d.unknown(BlockContext, t)
		default:
			if !d.claim(BlockContext, k, t) {
				continue
			}
			if pc.ExtraConstraints == nil {
				pc.ExtraConstraints = map[string]string{}
			}
			pc.ExtraConstraints[t.key] = t.value
		}
	}
}

// stack parses stack=hash(a,b,c) or stack=a,b.
func (d *decoder) stack(t token) {
	v := t.value
	if strings.HasPrefix(v, "hash(") || strings.ContainsAny(v, "()") {
		inner, ok := strings.CutPrefix(v, "hash(")
		if !ok || !strings.HasSuffix(inner, ")") || strings.ContainsAny(inner[:len(inner)-1], "()") {
			d.malformed(t, "stack must be hash(a,b,…) or a list")
			return
		}
		v = inner[:len(inner)-1]
	}
	appendList(&d.st.DeveloperProfile.StackDescriptors, v)
}

// project takes CONTEXT project=<hash> as the project hash when DATA had
// none; a different hash is a conflict.
func (d *decoder) project(t token) {
	pc := &d.st.ProjectContext
	switch {
	case !IsHashID(t.value):
		d.malformed(t, "project must be one hashed identifier")
	case pc.ProjectHash.IsUnknown():
		pc.ProjectHash = Value(t.value)
	case string(pc.ProjectHash) != t.value:
		d.malformed(t, "project conflicts with the DATA proj identifier")
	}
}

// insights parses the INSIGHTS block (decoder spec §4.4).
func (d *decoder) insights(tokens []token) {
	cs := &d.st.CognitiveSignals
	if d.dialect == dialect10 {
		cs.FreeForm = freeForm(tokens)
		return
	}
	cs.Patterns, cs.Trends, cs.Forecasts, cs.Correlations = List[Insight]{}, List[Insight]{}, List[Insight]{}, List[Insight]{}
	for _, t := range tokens {
		var dst *List[Insight]
		kind := InsightKind(lowerASCII(t.key))
		switch {
		case t.op != ':':
		case kind == KindPattern:
			dst = &cs.Patterns
		case kind == KindTrend:
			dst = &cs.Trends
		case kind == KindForecast:
			dst = &cs.Forecasts
		case kind == KindCorrelation:
			dst = &cs.Correlations
		}
		if dst == nil {
			d.unknown(BlockInsights, t)
			continue
		}
		if ins, ok := d.insight(kind, t); ok {
			*dst = append(*dst, ins)
		}
	}
}

// insight parses label[(args)] where args are weight=x, conf=y and at most
// one bare signed value, comma separated.
func (d *decoder) insight(kind InsightKind, t token) (Insight, bool) {
	ins := Insight{Kind: kind, Label: t.value, Weight: Unknown, Conf: Unknown, Signal: Unknown}
	args := ""
	if i := strings.IndexByte(t.value, '('); i >= 0 {
		if !strings.HasSuffix(t.value, ")") || strings.ContainsAny(t.value[i+1:len(t.value)-1], "()") {
			d.malformed(t, "insight arguments must be one (…) group at the end")
			return Insight{}, false
		}
		ins.Label, args = t.value[:i], t.value[i+1:len(t.value)-1]
	}
	if ins.Label == "" {
		d.malformed(t, "insight has no label")
		return Insight{}, false
	}
	outOfRange := false
	for _, a := range strings.Split(args, ",") {
		if a == "" && args == "" {
			break
		}
		name, val, named := cutByte(a, '=')
		var dst *Value
		lo := 0.0
		switch {
		case named && (name == "weight" || name == "conf"):
			dst = &ins.Weight
			if name == "conf" {
				dst = &ins.Conf
			}
		case !named:
			dst, val, lo = &ins.Signal, a, -1
		}
		f, isNum := Value(val).Float()
		if dst == nil || !dst.IsUnknown() || !isNum || (named && !isNumber(val, false, true)) {
			d.malformed(t, "insight arguments must be weight=x, conf=y and one signed value")
			return Insight{}, false
		}
		if f < lo || f > 1 {
			outOfRange = true
			continue
		}
		*dst = Value(val)
	}
	if outOfRange {
		d.warn(CodeInsightRange, "", "out-of-range value in "+cleanDetail(t.text)+" is UNKNOWN")
	}
	return ins, true
}

// decisions parses the DECISIONS block (decoder spec §4.5).
func (d *decoder) decisions(tokens []token) {
	dc := &d.st.DecisionContext
	if d.dialect == dialect10 {
		dc.FreeForm = freeForm(tokens)
		return
	}
	for _, t := range tokens {
		switch k := eqKey(t); {
		case t.op == 0 && standsAlone(BlockDecisions, t.text):
			appendList(&dc.ADRRefs, t.text)
		case k == "adr":
			appendList(&dc.ADRRefs, t.value)
		case k == "drift":
			appendList(&dc.DriftSignals, t.value)
		case k == "anomaly" || k == "anomalies":
			appendList(&dc.Anomalies, t.value)
		case k == "adjust" || k == "adjustment":
			appendList(&dc.Adjustments, t.value)
		case k == "integrity":
			in, ok := parseIntegrity(t.value)
			if !ok {
				d.malformed(t, "integrity must be green, amber or red")
				continue
			}
			if d.claim(BlockDecisions, k, t) {
				dc.Integrity = in
			}
		default:
			d.unknown(BlockDecisions, t)
		}
	}
}

// optional parses the OPTIONAL block (decoder spec §4.6). Before 1.2 every
// token is kept verbatim in Extensions.
func (d *decoder) optional(tokens []token) {
	om := &d.st.OptionalMetadata
	for _, t := range tokens {
		if d.dialect < dialect12 {
			d.extension(t)
			continue
		}
		switch k := eqKey(t); {
		case k == "vendor":
			d.scalar(BlockOptional, k, t, &om.Vendor, t.value)
		case k == "encoder":
			d.scalar(BlockOptional, k, t, &om.Encoder, t.value)
		case k == "policy":
			d.scalar(BlockOptional, k, t, &om.Policy, t.value)
		case k == "session" || k == "checksum":
			if !IsHashID(t.value) {
				d.malformed(t, k+" must be one hashed identifier")
				continue
			}
			dst := &om.Session
			if k == "checksum" {
				dst = &om.Checksum
			}
			d.scalar(BlockOptional, k, t, dst, t.value)
		case t.op == 0 && standsAlone(BlockOptional, t.text):
			d.scalar(BlockOptional, "checksum", t, &om.Checksum, t.text)
		default:
			d.extension(t)
		}
	}
}

// extension stores a token verbatim: key is the text before the first '=',
// value the text after it.
func (d *decoder) extension(t token) {
	k, v, _ := strings.Cut(t.text, "=")
	if d.claim(BlockOptional, "ext:"+k, t) {
		d.st.OptionalMetadata.Extensions[k] = v
	}
}

func freeForm(tokens []token) List[string] {
	out := make(List[string], 0, len(tokens))
	for _, t := range tokens {
		out = append(out, t.text)
	}
	return out
}
