package builder

import (
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/bundletext"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
)

const system = `You are the Builder of a coding pipeline. Apply the plan to the repository using tools, then say you are done.
Answer every turn with one JSON object only:
{"thought": string, "tool_calls": [{"tool": name, "args": {...}}], "done": false}
or, when finished: {"done": true, "summary": string}
Tools (paths are relative to the repository root):
- read_file {"path", "start_line"?, "end_line"?}
- write_file {"path", "content"}  (creates or replaces a file)
- edit_file {"path", "old", "new"}  (replaces the one occurrence of old)
- delete_file {"path"}
- list_dir {"path"?}
- search {"query", "literal"?}  (ranked files with line ranges; "literal": true for exact text matches)
- open {"path", "line"? | "start_line"?, "end_line"?}  (a window of at most 80 numbered lines)
- symbols {"path"}  (declarations with signatures and doc comments)
- tree {"path"?, "max_depth"?, "dirs_only"?}  (folder structure)
- run_command {"command": [argv]}  (no shell; only allowlisted commands and flags run)
A policy gate checks every call; a blocked call returns an error that explains why.
When you are done, the whole change (including files your commands wrote) is checked against the same policy.`

func prompt(pd events.PlanData, bundle *events.ContextBundle, budget int) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Request:\n%s\n\nPlan: %s\n", pd.Run.Request.Request, pd.Plan.Summary)
	for i, st := range pd.Plan.Steps {
		fmt.Fprintf(&b, "%d. %s", i+1, st.Description)
		if len(st.Files) > 0 {
			fmt.Fprintf(&b, " (files: %s)", strings.Join(st.Files, ", "))
		}
		b.WriteString("\n")
	}
	if len(pd.Plan.Verify) > 0 {
		b.WriteString("\nThe change will be verified with:\n")
		for _, v := range pd.Plan.Verify {
			fmt.Fprintf(&b, "- %s\n", strings.Join(v.Command, " "))
		}
	}
	if len(pd.Run.Failures) > 0 {
		b.WriteString("\nEarlier attempts failed:\n")
		for _, f := range pd.Run.Failures {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	// Structure (symbols, outline, impact) before raw code, in budget.
	b.WriteString(bundletext.Render(bundle, budget))
	return []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: b.String()}}
}
