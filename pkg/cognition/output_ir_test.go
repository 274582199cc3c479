package cognition

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestOutputIRRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		ir   OutputIR
	}{
		{name: "empty"},
		{name: "acts only", ir: OutputIR{Acts: []ActDraft{{Act: "noop"}}}},
		{
			name: "everything",
			ir: OutputIR{
				Acts: []ActDraft{
					{Act: "read_file", Args: json.RawMessage(`{"path":"cmd/main.go","lines":[1,20]}`)},
					{Act: "say", Args: json.RawMessage(`{"text":"\u003c/acts\u003e is escaped \u0026 safe"}`)},
				},
				GoalTreePatch: []GoalTreePatchOp{
					SproutOp(UserRootID, "ship", "Ship the <MVP>", 10),
					TiltOp("ship", -3),
					PruneOp("old"),
				},
				L1MemoryPatch: []L1MemoryPatchOp{
					AppendOp("tests are green"),
					InsertOp(0, "first"),
					RemoveOp(4),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := RenderOutputIR(tt.ir)
			if err != nil {
				t.Fatalf("RenderOutputIR: %v", err)
			}
			got, err := ParseOutputIR(text)
			if err != nil {
				t.Fatalf("ParseOutputIR: %v\n%s", err, text)
			}
			if !reflect.DeepEqual(got, tt.ir) {
				t.Errorf("round trip\n got %+v\nwant %+v\ntext:\n%s", got, tt.ir, text)
			}
		})
	}
}

func TestRenderOutputIRShape(t *testing.T) {
	text, err := RenderOutputIR(OutputIR{L1MemoryPatch: []L1MemoryPatchOp{RemoveOp(1)}})
	if err != nil {
		t.Fatalf("RenderOutputIR: %v", err)
	}
	want := `<output-ir>
<acts>
[]
</acts>
<goal-tree-patch>
[]
</goal-tree-patch>
<l1-memory-patch>
[
  {
    "op": "remove",
    "index": 1
  }
]
</l1-memory-patch>
</output-ir>
`
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
}

func TestRenderOutputIRErrors(t *testing.T) {
	tests := []struct {
		name    string
		ir      OutputIR
		wantErr error
	}{
		{name: "bad act", ir: OutputIR{Acts: []ActDraft{{}}}, wantErr: ErrInvalidActDraft},
		{name: "bad goal op", ir: OutputIR{GoalTreePatch: []GoalTreePatchOp{{Op: "graft"}}}, wantErr: ErrUnknownOp},
		{name: "bad memory op", ir: OutputIR{L1MemoryPatch: []L1MemoryPatchOp{RemoveOp(-1)}}, wantErr: ErrNegativeIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := RenderOutputIR(tt.ir); !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// ir assembles an output IR text from raw section bodies.
func ir(acts, goal, mem string) string {
	return "<output-ir>\n<acts>\n" + acts + "\n</acts>\n<goal-tree-patch>\n" + goal +
		"\n</goal-tree-patch>\n<l1-memory-patch>\n" + mem + "\n</l1-memory-patch>\n</output-ir>"
}

func TestParseOutputIRContractFailures(t *testing.T) {
	const acts, goal, mem = "<acts>[]</acts>", "<goal-tree-patch>[]</goal-tree-patch>", "<l1-memory-patch>[]</l1-memory-patch>"
	wrap := func(inner string) string { return "<output-ir>" + inner + "</output-ir>" }
	tests := []struct {
		name    string
		text    string
		wantErr error
	}{
		{name: "empty output", text: "", wantErr: ErrMalformedIR},
		{name: "no wrapper", text: acts + goal + mem, wantErr: ErrMalformedIR},
		{name: "unclosed wrapper", text: "<output-ir>" + acts + goal + mem, wantErr: ErrMalformedIR},
		{name: "prose before the wrapper", text: "Sure! " + wrap(acts+goal+mem), wantErr: ErrMalformedIR},
		{name: "prose after the wrapper", text: wrap(acts+goal+mem) + " done", wantErr: ErrMalformedIR},
		{name: "two wrappers", text: wrap(acts+goal+mem) + wrap(acts+goal+mem), wantErr: ErrMalformedIR},
		{name: "missing acts", text: wrap(goal + mem), wantErr: ErrMissingSection},
		{name: "missing goal-tree-patch", text: wrap(acts + mem), wantErr: ErrMissingSection},
		{name: "missing l1-memory-patch", text: wrap(acts + goal), wantErr: ErrMissingSection},
		{name: "all sections missing", text: wrap(" \n "), wantErr: ErrMissingSection},
		{name: "duplicate section", text: wrap(acts + acts + goal + mem), wantErr: ErrDuplicateSection},
		{name: "extra context section", text: wrap(acts + goal + mem + "<context>x</context>"), wantErr: ErrUnknownSection},
		{name: "section with attributes", text: wrap(`<acts format="json">[]</acts>` + goal + mem), wantErr: ErrUnknownSection},
		{name: "text between sections", text: wrap(acts + "and then" + goal + mem), wantErr: ErrUnknownSection},
		{name: "unclosed section", text: wrap(acts + goal + "<l1-memory-patch>[]"), wantErr: ErrMalformedIR},
		{name: "unterminated tag", text: wrap(acts + goal + mem + "<acts"), wantErr: ErrMalformedIR},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutputIR(tt.text)
			if !errors.Is(err, ErrContractFailure) || !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want ErrContractFailure and %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, OutputIR{}) {
				t.Errorf("contract failure returned content: %+v", got)
			}
		})
	}
}

func TestParseOutputIRMissingSectionNamesThem(t *testing.T) {
	_, err := ParseOutputIR("<output-ir><acts>[]</acts></output-ir>")
	for _, name := range []string{"<goal-tree-patch>", "<l1-memory-patch>"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}

func TestParseOutputIRBodies(t *testing.T) {
	wantActs := []ActDraft{{Act: "say", Args: json.RawMessage(`{"text":"hi"}`)}}
	wantGoal := []GoalTreePatchOp{TiltOp("a", 1)}
	wantMem := []L1MemoryPatchOp{AppendOp("m")}
	const actsJSON = `[{"act":"say","args":{"text":"hi"}}]`
	const goalJSON = `[{"op":"tilt","node_id":"a","weight":1}]`
	const memJSON = `[{"op":"append","value":"m"}]`
	tests := []struct {
		name string
		text string
	}{
		{name: "bare JSON", text: ir(actsJSON, goalJSON, memJSON)},
		{name: "json fences", text: ir("```json\n"+actsJSON+"\n```", "```json\n"+goalJSON+"\n```", "```json\n"+memJSON+"\n```")},
		{name: "plain fences", text: ir("```\n"+actsJSON+"\n```", "```\n"+goalJSON+"\n```", "```\n"+memJSON+"\n```")},
		{name: "fences with prose around", text: ir(
			"Acts for this cycle:\n```json\n"+actsJSON+"\n```\nThat is all.",
			"Adjust focus.\n```json\n"+goalJSON+"\n```",
			"```json\n"+memJSON+"\n```\n(remember)")},
		{name: "sections in another order, surrounding whitespace", text: "\n  <output-ir>\n<l1-memory-patch>" + memJSON + "</l1-memory-patch>\n\t<acts>" + actsJSON +
			"</acts><goal-tree-patch>" + goalJSON + "</goal-tree-patch></output-ir>\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutputIR(tt.text)
			if err != nil {
				t.Fatalf("ParseOutputIR: %v", err)
			}
			want := OutputIR{Acts: wantActs, GoalTreePatch: wantGoal, L1MemoryPatch: wantMem}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseOutputIRHelperFailures(t *testing.T) {
	const goodGoal = `[{"op":"prune","node_id":"a"}]`
	tests := []struct {
		name      string
		text      string
		wantDiags []string
		wantGoal  []GoalTreePatchOp
	}{
		{name: "empty bodies are empty arrays", text: ir("", "  ", "\n"), wantDiags: []string{}},
		{name: "empty arrays", text: ir("[]", "[ ]", "```json\n[]\n```"), wantDiags: []string{}},
		{name: "malformed acts JSON", text: ir(`[{"act":`, goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "acts wrapped in an object", text: ir(`{"acts":[]}`, goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "prose without JSON", text: ir("nothing to do", goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "null body", text: ir("null", goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "one invalid op empties its section", text: ir("[]", `[{"op":"prune","node_id":"a"},{"op":"graft"}]`, `[{"op":"append","value":"m"}]`), wantDiags: []string{"goal-tree-patch[-1]:invalid-helper-output"}},
		{name: "negative memory index", text: ir("[]", goodGoal, `[{"op":"remove","index":-1}]`), wantDiags: []string{"l1-memory-patch[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "unclosed fence", text: ir("```json\n[]", goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "fence without newline", text: ir("```[]```", goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "fence holding an object", text: ir("```json\n{}\n```", goodGoal, "[]"), wantDiags: []string{"acts[-1]:invalid-helper-output"}, wantGoal: []GoalTreePatchOp{PruneOp("a")}},
		{name: "every helper fails", text: ir("x", "y", "z"), wantDiags: []string{"acts[-1]:invalid-helper-output", "goal-tree-patch[-1]:invalid-helper-output", "l1-memory-patch[-1]:invalid-helper-output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutputIR(tt.text)
			if err != nil {
				t.Fatalf("ParseOutputIR: %v", err)
			}
			if codes := diagCodes(got.Diagnostics); !slices.Equal(codes, tt.wantDiags) {
				t.Errorf("diagnostics = %v, want %v", codes, tt.wantDiags)
			}
			if !reflect.DeepEqual(got.GoalTreePatch, tt.wantGoal) {
				t.Errorf("goal patch = %+v, want %+v", got.GoalTreePatch, tt.wantGoal)
			}
			for _, d := range got.Diagnostics {
				if d.Detail == "" {
					t.Errorf("diagnostic without detail: %+v", d)
				}
				switch d.Section {
				case SectionActs:
					if got.Acts != nil {
						t.Errorf("failed acts helper kept %+v", got.Acts)
					}
				case SectionL1MemoryPatch:
					if got.L1MemoryPatch != nil {
						t.Errorf("failed memory helper kept %+v", got.L1MemoryPatch)
					}
				}
			}
		})
	}
}

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{name: "op", d: Diagnostic{Section: SectionGoalTreePatch, Index: 2, Op: "prune", Code: CodeMissingNode, Detail: `node "x" not found`}, want: `goal-tree-patch[2] prune: missing-node: node "x" not found`},
		{name: "section", d: Diagnostic{Section: SectionActs, Index: -1, Code: CodeInvalidHelperOutput, Detail: "bad"}, want: "acts: invalid-helper-output: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
