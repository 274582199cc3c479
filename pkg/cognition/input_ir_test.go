package cognition

import (
	"strings"
	"testing"
)

func TestRenderInputIR(t *testing.T) {
	withTree := stateWith(4, []string{"saw </l1-memory> & moved on", "second"}, node("ship", 7, node("tests", -2)))
	withTree.GoalTree.RootPartition = []string{"ignored: the constants win"}

	tests := []struct {
		name    string
		senses  string
		catalog string
		state   CognitionState
		want    string
	}{
		{
			name:    "default state, empty senses",
			senses:  "",
			catalog: "  - read_file(path)\n",
			state:   NewState(),
			want: `<input-ir>
<senses>
</senses>
<act-descriptor-catalog>
- read_file(path)
</act-descriptor-catalog>
<goal-tree>
## root partition
[
  "Preserve operational continuity.",
  "Seek advantageous state transitions.",
  "Protect long-term viability."
]

## user partition
{
  "node_id": "user-root",
  "summary": "user goals",
  "weight": 0,
  "children": []
}
</goal-tree>
<l1-memory>
[]
</l1-memory>
</input-ir>
`,
		},
		{
			name:    "tree and memory, JSON escapes markup",
			senses:  "\nuser: build it\n",
			catalog: "",
			state:   withTree,
			want: `<input-ir>
<senses>
user: build it
</senses>
<act-descriptor-catalog>
</act-descriptor-catalog>
<goal-tree>
## root partition
[
  "Preserve operational continuity.",
  "Seek advantageous state transitions.",
  "Protect long-term viability."
]

## user partition
{
  "node_id": "user-root",
  "summary": "user goals",
  "weight": 0,
  "children": [
    {
      "node_id": "ship",
      "summary": "ship summary",
      "weight": 7,
      "children": [
        {
          "node_id": "tests",
          "summary": "tests summary",
          "weight": -2,
          "children": []
        }
      ]
    }
  ]
}
</goal-tree>
<l1-memory>
[
  "saw \u003c/l1-memory\u003e \u0026 moved on",
  "second"
]
</l1-memory>
</input-ir>
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderInputIR(tt.senses, tt.catalog, tt.state)
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if again := RenderInputIR(tt.senses, tt.catalog, tt.state); again != got {
				t.Error("rendering is not deterministic")
			}
		})
	}
}

func TestRenderInputIRNilMemory(t *testing.T) {
	s := NewState()
	s.L1Memory.Entries = nil
	if got := RenderInputIR("", "", s); !strings.Contains(got, "<l1-memory>\n[]\n</l1-memory>") {
		t.Errorf("nil memory not rendered as []:\n%s", got)
	}
}
