package codex

import (
	"errors"
	"strings"
	"testing"
)

// allCodes lists every diagnostic code the package defines.
var allCodes = []Code{
	CodeSizeExceeded, CodeUnparseable, CodeMissingBlock, CodeHashViolation, CodeBlockOrder,
	CodeDuplicateBlock, CodeRawContent, CodeOptionalOverflow, CodeUnsupportedVersion,
	CodeDataMalformed, CodeTimelineMissingCycles, CodeInsightRange, CodeBlockEmpty,
	CodeOptionalTruncated, CodeUnknownToken, CodeDuplicateToken, CodeChecksumMismatch,
}

type diagCase struct {
	name     string
	payload  func(t *testing.T) string
	validate bool   // run Validate instead of Decode
	want     string // a diagnostic String that must be produced
	sentinel error  // for ERROR cases: what the Decode (or Encode) error must match
}

// ref returns a payload builder editing the reference payload.
func ref(pairs ...string) func(t *testing.T) string {
	return func(t *testing.T) string {
		t.Helper()
		p := referencePayload(t)
		for i := 0; i+1 < len(pairs); i += 2 {
			p = edit(t, p, pairs[i], pairs[i+1])
		}
		return p
	}
}

func literal(s string) func(t *testing.T) string {
	return func(*testing.T) string { return s }
}

func diagnosticCases() []diagCase {
	longOptional := "<OPTIONAL>vendor=x | " + strings.Repeat("ext.k=v | ", 60) + "policy=p</OPTIONAL>"
	return []diagCase{
		{name: "size exceeded", payload: ref("maturity=iter2", "maturity=iter2"+strings.Repeat(" | kpi:a=b", 1100)),
			want: "ERROR:size-exceeded", sentinel: ErrSizeExceeded},
		{name: "not a payload", payload: literal("hello world"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "empty input", payload: literal(""), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "no closing root", payload: ref("</RL4-CODEX>", ""), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "trailing text", payload: ref("</RL4-CODEX>", "</RL4-CODEX> extra"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "text between blocks", payload: ref("<TIMELINE>", "stray <TIMELINE>"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "unclosed block", payload: ref("</CONTEXT>", ""), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "nested tag", payload: ref("type=fullstack", "<X>type</X>"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "stray closing tag", payload: ref("<TIMELINE>", "</DATA><TIMELINE>"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "block with attribute", payload: ref("<DATA>", `<DATA a="b">`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "malformed root attribute", payload: ref(`v="1.2"`, `v=1.2`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "unterminated root attribute", payload: ref(`v="1.2"`, `v="1.2`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "repeated root attribute", payload: ref(`v="1.2"`, `v="1.2" v="1.1"`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "root name run-on", payload: ref(`<RL4-CODEX v`, `<RL4-CODEXY v`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "attribute glued", payload: ref(`v="1.2"`, `v="1.2"x="y"`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "header never closed", payload: literal(`<RL4-CODEX v="1.2"`), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "tag without name", payload: ref("<DATA>", "<>x</><DATA>"), want: "ERROR:unparseable", sentinel: ErrUnparseable},
		{name: "missing block", payload: ref("<CONTEXT>", "<NOTCONTEXT>", "</CONTEXT>", "</NOTCONTEXT>"),
			want: "ERROR:missing-block:CONTEXT", sentinel: ErrMissingBlock},
		{name: "hash with upper-case hex", payload: ref("proj#7fa2", "proj#7FA2"), want: "ERROR:hash-violation:proj#7FA2", sentinel: ErrHashViolation},
		{name: "hash too short", payload: ref("adr#c3d1", "adr#c3d"), want: "ERROR:hash-violation:adr#c3d", sentinel: ErrHashViolation},
		{name: "namespace too short", payload: ref("checksum#92af", "ck#92af"), want: "ERROR:hash-violation:ck#92af", sentinel: ErrHashViolation},
		{name: "session not hashed", payload: ref("session=fingerprint#aa71", "session=laptop"), want: "ERROR:hash-violation:session=laptop", sentinel: ErrHashViolation},
		{name: "bare filename in timeline", payload: ref("bursts=2", "bursts=2 | main.go"), want: "ERROR:hash-violation:main.go", sentinel: ErrHashViolation},
		{name: "path in a value", payload: ref("anomalies=idle-dip", "anomalies=internal/api/handler"), want: "ERROR:hash-violation:anomalies=internal/api/handler", sentinel: ErrHashViolation},
		{name: "blocks out of order", payload: ref("<CONTEXT>", "<XCONTEXT>", "</CONTEXT>", "</XCONTEXT>", "<OPTIONAL>", "<CONTEXT>type=x</CONTEXT><OPTIONAL>"),
			want: "ERROR:block-order:CONTEXT", sentinel: ErrBlockOrder},
		{name: "duplicate block", payload: ref("<TIMELINE>", "<DATA>mode=normal</DATA><TIMELINE>"),
			want: "ERROR:duplicate-block:DATA", sentinel: ErrDuplicateBlock},
		{name: "json", payload: ref("anomalies=idle-dip", `anomalies={"a":1}`), want: `ERROR:raw-content:anomalies={"a":1}`, sentinel: ErrRawContent},
		{name: "code", payload: ref("reasoning=chain-strict", "reasoning=x=1;"), want: "ERROR:raw-content:reasoning=x=1;", sentinel: ErrRawContent},
		{name: "base64", payload: ref("maturity=iter2", "maturity=aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ"),
			want: "ERROR:raw-content:maturity=aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ", sentinel: ErrRawContent},
		{name: "prose", payload: ref("anomaly=spotlight-fe", "anomaly=spotlight-fe | fix the login bug"),
			want: "ERROR:raw-content:fix the login bug", sentinel: ErrRawContent},
		{name: "yaml mapping", payload: ref("risk=drift-low", "risk=drift-low\nowner: alice"), want: "ERROR:raw-content:owner:", sentinel: ErrRawContent},
		{name: "yaml list marker", payload: ref("risk=drift-low", "risk=drift-low\n- item"), want: "ERROR:raw-content:-", sentinel: ErrRawContent},
		{name: "non-ascii", payload: ref("phase=build", "phase=bäu"), want: "ERROR:raw-content:phase=b??u", sentinel: ErrRawContent},
		{name: "long word", payload: ref("maturity=iter2", "maturity="+strings.Repeat("ab-", 40)),
			want: "ERROR:raw-content:" + ("maturity=" + strings.Repeat("ab-", 40))[:64] + "...", sentinel: ErrRawContent},
		{name: "optional overflow (Validate)", payload: ref("<OPTIONAL>", longOptional[:len(longOptional)-len("</OPTIONAL>")]+" | ", "</OPTIONAL>", "</OPTIONAL>"),
			validate: true, want: "ERROR:optional-overflow"},
		{name: "unsupported version", payload: ref(`v="1.2"`, `v="1.3"`), want: "WARN:unsupported-version"},
		{name: "missing version", payload: ref(` v="1.2"`, ``), want: "WARN:unsupported-version"},
		{name: "tasks=abc", payload: ref("tasks=3", "tasks=abc"), want: "WARN:data-malformed:tasks=abc"},
		{name: "tasks half total", payload: ref("tasks=3", "tasks=3.active/x.total"), want: "WARN:data-malformed:tasks=3.active/x.total"},
		{name: "mode unknown", payload: ref("mode=strict", "mode=wild"), want: "WARN:data-malformed:mode=wild"},
		{name: "empty phase", payload: ref("phase=build", "phase="), want: "WARN:data-malformed:phase="},
		{name: "proj key not one hash", payload: ref("proj#7fa2", "proj=proj#7fa2,proj#7fa3"), want: "WARN:data-malformed:proj=proj#7fa2,proj#7fa3"},
		{name: "cog.health out of range", payload: ref("cog.health=0.82", "cog.health=1.5"), want: "WARN:data-malformed:cog.health=1.5"},
		{name: "cog.health exponent", payload: ref("cog.health=0.82", "cog.health=1e-1"), want: "WARN:data-malformed:cog.health=1e-1"},
		{name: "kpi without value", payload: ref("kpi:velocity=steady", "kpi:velocity"), want: "WARN:data-malformed:kpi:velocity"},
		{name: "cycles not a number", payload: ref("cycles=5", "cycles=five"), want: "WARN:data-malformed:cycles=five"},
		{name: "stack unclosed", payload: ref("stack=hash(fe,api,llm)", "stack=hash(fe,api"), want: "WARN:data-malformed:stack=hash(fe,api"},
		{name: "stack stray parens", payload: ref("stack=hash(fe,api,llm)", "stack=go(x)"), want: "WARN:data-malformed:stack=go(x)"},
		{name: "project not a hash", payload: ref("type=fullstack", "type=fullstack | project=proj#7fa2,proj#beef"), want: "WARN:data-malformed:project=proj#7fa2,proj#beef"},
		{name: "project conflicts", payload: ref("type=fullstack", "type=fullstack | project=proj#beef"), want: "WARN:data-malformed:project=proj#beef"},
		{name: "insight unbalanced", payload: ref("trend:velocity-up(conf=0.71)", "trend:velocity-up(conf=0.71"), want: "WARN:data-malformed:trend:velocity-up(conf=0.71"},
		{name: "insight text after args", payload: ref("trend:velocity-up(conf=0.71)", "trend:velocity-up(conf=0.71)x"), want: "WARN:data-malformed:trend:velocity-up(conf=0.71)x"},
		{name: "insight no label", payload: ref("trend:velocity-up(conf=0.71)", "trend:(conf=0.71)"), want: "WARN:data-malformed:trend:(conf=0.71)"},
		{name: "insight unknown arg", payload: ref("trend:velocity-up(conf=0.71)", "trend:up(speed=0.71)"), want: "WARN:data-malformed:trend:up(speed=0.71)"},
		{name: "insight signed weight", payload: ref("trend:velocity-up(conf=0.71)", "trend:up(weight=+0.1)"), want: "WARN:data-malformed:trend:up(weight=+0.1)"},
		{name: "insight two signals", payload: ref("trend:velocity-up(conf=0.71)", "trend:up(+0.1,-0.2)"), want: "WARN:data-malformed:trend:up(+0.1,-0.2)"},
		{name: "insight empty arg", payload: ref("trend:velocity-up(conf=0.71)", "trend:up(,conf=0.1)"), want: "WARN:data-malformed:trend:up(,conf=0.1)"},
		{name: "integrity unknown", payload: ref("integrity=green", "integrity=purple"), want: "WARN:data-malformed:integrity=purple"},
		{name: "checksum not one hash", payload: ref("checksum#92af", "checksum=sum#92af,sum#92ae"), want: "WARN:data-malformed:checksum=sum#92af,sum#92ae"},
		{name: "cycles missing", payload: ref("cycles=5 | ", ""), want: "WARN:timeline-missing-cycles"},
		{name: "weight above 1", payload: ref("weight=0.60", "weight=1.60"), want: "WARN:insight-range"},
		{name: "signal below -1", payload: ref("forecast:phase-shift-ready", "correlation:tests-vs-focus(-1.41)"), want: "WARN:insight-range"},
		{name: "empty insights", payload: ref("pattern:handoff-friction(weight=0.60,conf=0.71)", "", "trend:velocity-up(conf=0.71)", "", "forecast:phase-shift-ready", ""),
			want: "WARN:block-empty:INSIGHTS"},
		{name: "empty optional", payload: ref("vendor=reference-kit | checksum#92af | session=fingerprint#aa71", ""), want: "WARN:block-empty:OPTIONAL"},
		{name: "optional truncated", payload: ref("<OPTIONAL>", longOptional[:len(longOptional)-len("</OPTIONAL>")]+" | ", "</OPTIONAL>", "</OPTIONAL>"),
			want: "WARN:optional-truncated"},
		{name: "unknown data token", payload: ref("maturity=iter2", "maturity=iter2 | flavour=vanilla"), want: "WARN:unknown-token:flavour=vanilla"},
		{name: "unknown insight kind", payload: ref("forecast:phase-shift-ready", "hunch:maybe"), want: "WARN:unknown-token:hunch:maybe"},
		{name: "unknown timeline token", payload: ref("bursts=2", "bursts=2 | pace=fast"), want: "WARN:unknown-token:pace=fast"},
		{name: "bare context word", payload: ref("risk=drift-low", "risk=drift-low | lonely"), want: "WARN:unknown-token:lonely"},
		{name: "unknown decision", payload: ref("integrity=green", "integrity=green | verdict=ok"), want: "WARN:unknown-token:verdict=ok"},
		{name: "duplicate mode", payload: ref("mode=strict", "mode=strict | mode=normal"), want: "WARN:duplicate-token:mode=normal"},
		{name: "duplicate kpi", payload: ref("kpi:velocity=steady", "kpi:velocity=steady | kpi:velocity=fast"), want: "WARN:duplicate-token:kpi:velocity=fast"},
		{name: "duplicate tasks", payload: ref("tasks=3", "tasks=3 | tasks=4"), want: "WARN:duplicate-token:tasks=4"},
		{name: "duplicate integrity", payload: ref("integrity=green", "integrity=green | integrity=red"), want: "WARN:duplicate-token:integrity=red"},
		{name: "duplicate context extra", payload: ref("risk=drift-low", "risk=drift-low | owner=team-a | owner=team-b"), want: "WARN:duplicate-token:owner=team-b"},
		{name: "duplicate extension", payload: ref("vendor=reference-kit", "vendor=reference-kit | ext.a=1 | ext.a=2"), want: "WARN:duplicate-token:ext.a=2"},
		{name: "checksum mismatch", payload: ref("checksum#92af", "checksum=sum#0123456789abcdef"), want: "WARN:checksum-mismatch"},
	}
}

func TestDiagnostics(t *testing.T) {
	produced := map[Code]bool{}
	for _, tc := range diagnosticCases() {
		t.Run(tc.name, func(t *testing.T) {
			payload := tc.payload(t)
			if tc.validate {
				diags := Validate(payload)
				for _, d := range diags {
					produced[d.Code] = true
				}
				if !hasDiag(diags, tc.want) {
					t.Fatalf("Validate: want %s, got %v", tc.want, diagStrings(diags))
				}
				return
			}
			st, diags, err := Decode(payload)
			for _, d := range diags {
				produced[d.Code] = true
			}
			if !hasDiag(diags, tc.want) {
				t.Fatalf("Decode: want %s, got %v", tc.want, diagStrings(diags))
			}
			if tc.sentinel == nil {
				if err != nil || st == nil || HasErrors(diags) {
					t.Fatalf("warning case failed decoding: err %v, diagnostics %v", err, diagStrings(diags))
				}
				if vd := Validate(payload); HasErrors(vd) && !strings.Contains(tc.want, "optional") {
					t.Errorf("Validate rejects a payload Decode accepts: %v", diagStrings(vd))
				}
				return
			}
			if st != nil || !errors.Is(err, tc.sentinel) || !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("want nil state and error matching %v, got state %v, err %v", tc.sentinel, st != nil, err)
			}
			if vd := Validate(payload); !HasErrors(vd) {
				t.Errorf("Validate accepts a payload Decode rejects")
			}
		})
	}
	for _, c := range allCodes {
		if !produced[c] {
			t.Errorf("no case produces code %s", c)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{"with detail", Diagnostic{Level: LevelError, Code: CodeHashViolation, Detail: "hotspots=src/api.ts", Message: "ignored"}, "ERROR:hash-violation:hotspots=src/api.ts"},
		{"without detail", Diagnostic{Level: LevelWarn, Code: CodeInsightRange}, "WARN:insight-range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCleanDetail(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "mode=x", "mode=x"},
		{"control and non-ascii", "a\x00b\xc3\xa4", "a?b??"},
		{"long", strings.Repeat("x", 70), strings.Repeat("x", 64) + "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanDetail(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
