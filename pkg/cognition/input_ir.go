package cognition

import (
	"encoding/json"
	"strings"
)

// RenderInputIR renders the input IR given to the primary model:
//
//	<input-ir>
//	<senses>
//	…senses…
//	</senses>
//	<act-descriptor-catalog>
//	…actCatalog…
//	</act-descriptor-catalog>
//	<goal-tree>
//	## root partition
//	[…the root partition constants…]
//
//	## user partition
//	{…state's user partition…}
//	</goal-tree>
//	<l1-memory>
//	[…state's L1 memory entries…]
//	</l1-memory>
//	</input-ir>
//
// senses and actCatalog are inserted verbatim apart from trimming surrounding
// whitespace; either may be empty (an autonomous tick has no senses). The
// root partition always comes from the constants, never from state. JSON is
// indented by two spaces and escapes '<', '>' and '&', so state content
// cannot forge IR tags. The output is a pure function of the arguments.
func RenderInputIR(senses string, actCatalog string, state CognitionState) string {
	var b strings.Builder
	b.WriteString("<input-ir>\n")
	writeSection(&b, "senses", strings.TrimSpace(senses))
	writeSection(&b, "act-descriptor-catalog", strings.TrimSpace(actCatalog))
	goalTree := "## root partition\n" + mustIndentJSON(RootPartition()) +
		"\n\n## user partition\n" + mustIndentJSON(state.GoalTree.UserPartition)
	writeSection(&b, "goal-tree", goalTree)
	entries := state.L1Memory.Entries
	if entries == nil {
		entries = []string{}
	}
	writeSection(&b, "l1-memory", mustIndentJSON(entries))
	b.WriteString("</input-ir>\n")
	return b.String()
}

// writeSection writes <name>\nbody\n</name>\n, leaving out the body line when
// body is empty.
func writeSection(b *strings.Builder, name, body string) {
	b.WriteString("<" + name + ">\n")
	if body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
	b.WriteString("</" + name + ">\n")
}

// mustIndentJSON encodes values whose encoding cannot fail (strings, string
// slices and goal nodes).
func mustIndentJSON(v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("cognition: encoding a goal node or string list cannot fail: " + err.Error())
	}
	return string(data)
}
