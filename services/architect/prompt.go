package architect

import (
	"fmt"
	"strings"

	"github.com/codali-dev/codali/pkg/bundletext"
	"github.com/codali-dev/codali/pkg/llm"
)

const system = `You are the Architect of a coding pipeline. Produce a plan for the request: steps, target files, risks and how to verify the change. Do not write code.
Answer with one JSON object only:
{"summary": string,
 "steps": [{"description": string, "files": [string]}],
 "target_files": [existing files to modify],
 "creates": [new files to add],
 "risks": [string],
 "verify": [{"name": string, "command": [argv strings, no shell], "timeout_ms": number}]}
Verification commands run in the changed repository without a shell; use the project's own test and lint tools.
The change may touch only target_files, creates and the steps' files: anything else fails review.`

// maxPromptFiles bounds the file list shown to the model.
const maxPromptFiles = 200

func prompt(inp input, budget int) []llm.Message {
	var b strings.Builder
	req := inp.run.Request
	fmt.Fprintf(&b, "Request:\n%s\n\n", req.Request)
	if bd := inp.bundle; bd != nil {
		b.WriteString("Repository files:\n")
		for i, f := range bd.Files {
			if i == maxPromptFiles {
				fmt.Fprintf(&b, "… and %d more\n", len(bd.Files)-maxPromptFiles)
				break
			}
			fmt.Fprintf(&b, "- %s (%d bytes)\n", f.Path, f.Bytes)
		}
		// Structure (symbols, outline, impact) before raw code, in budget.
		b.WriteString(bundletext.Render(bd, budget))
		if len(bd.Memory) > 0 {
			b.WriteString("\nLessons from earlier runs on this project:\n")
			for _, m := range bd.Memory {
				fmt.Fprintf(&b, "- %s\n", m)
			}
		}
		if len(bd.Goals) > 0 {
			b.WriteString("\nOpen project goals:\n")
			for _, g := range bd.Goals {
				fmt.Fprintf(&b, "- %s\n", g)
			}
		}
	}
	if r := inp.retry; r != nil {
		fmt.Fprintf(&b, "\nThe previous attempt failed verification: %s\n", r.Reason)
		for _, c := range r.Checks {
			if !c.OK {
				fmt.Fprintf(&b, "\nCheck %q (%s) exited %d:\n%s\n", c.Name, strings.Join(c.Command, " "), c.ExitCode, c.Output)
			}
		}
		fmt.Fprintf(&b, "\nPrevious plan: %s\nRevise the plan so the next attempt passes.\n", r.Previous.Summary)
	}
	return []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: b.String()}}
}
