package cognition

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// outputSections lists the required output IR sections in canonical order.
var outputSections = [...]Section{SectionActs, SectionGoalTreePatch, SectionL1MemoryPatch}

// ParseOutputIR parses primary model output.
//
// The first-level structure is enforced deterministically: after trimming
// surrounding whitespace the text must be exactly one <output-ir>…</output-ir>
// element, containing exactly the three sections <acts>, <goal-tree-patch> and
// <l1-memory-patch> (any order, each once) separated only by whitespace.
// Anything else is a contract failure: the error wraps ErrContractFailure and
// one of ErrMalformedIR, ErrMissingSection, ErrDuplicateSection or
// ErrUnknownSection, and the caller must do nothing (no acts, state
// unchanged).
//
// Each section body is a JSON array of the section's helper type, either bare
// or inside a Markdown code fence (```json … ```), optionally surrounded by
// prose. An empty body is an empty array. A body that holds no JSON array or
// whose array fails strict decoding is a helper failure: that section becomes
// empty and a CodeInvalidHelperOutput Diagnostic is added, while the other
// sections are kept.
func ParseOutputIR(text string) (OutputIR, error) {
	inner, err := unwrapOutputIR(text)
	if err != nil {
		return OutputIR{}, err
	}
	bodies, err := splitSections(inner)
	if err != nil {
		return OutputIR{}, err
	}
	var out OutputIR
	out.Acts = decodeSection[ActDraft](SectionActs, bodies[SectionActs], &out.Diagnostics)
	out.GoalTreePatch = decodeSection[GoalTreePatchOp](SectionGoalTreePatch, bodies[SectionGoalTreePatch], &out.Diagnostics)
	out.L1MemoryPatch = decodeSection[L1MemoryPatchOp](SectionL1MemoryPatch, bodies[SectionL1MemoryPatch], &out.Diagnostics)
	return out, nil
}

// contractError builds an error wrapping ErrContractFailure and kind.
func contractError(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrContractFailure, kind, fmt.Sprintf(format, args...))
}

// unwrapOutputIR returns the text between the single <output-ir> wrapper.
func unwrapOutputIR(text string) (string, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, outputOpen) {
		return "", contractError(ErrMalformedIR, "output does not start with %s", outputOpen)
	}
	if !strings.HasSuffix(t, outputClose) || len(t) < len(outputOpen)+len(outputClose) {
		return "", contractError(ErrMalformedIR, "output does not end with %s", outputClose)
	}
	inner := t[len(outputOpen) : len(t)-len(outputClose)]
	if strings.Contains(inner, outputOpen) || strings.Contains(inner, outputClose) {
		return "", contractError(ErrMalformedIR, "nested or repeated %s", outputOpen)
	}
	return inner, nil
}

// splitSections cuts the wrapper content into the three section bodies.
func splitSections(inner string) (map[Section]string, error) {
	bodies := make(map[Section]string, len(outputSections))
	rest := inner
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if !strings.HasPrefix(rest, "<") {
			return nil, contractError(ErrUnknownSection, "text outside sections: %q", excerpt(rest))
		}
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return nil, contractError(ErrMalformedIR, "unterminated tag %q", excerpt(rest))
		}
		name := Section(rest[1:end])
		if !slices.Contains(outputSections[:], name) {
			return nil, contractError(ErrUnknownSection, "unexpected element %q", excerpt(rest[:end+1]))
		}
		if _, dup := bodies[name]; dup {
			return nil, contractError(ErrDuplicateSection, "<%s> appears more than once", name)
		}
		rest = rest[end+1:]
		closeTag := "</" + string(name) + ">"
		stop := strings.Index(rest, closeTag)
		if stop < 0 {
			return nil, contractError(ErrMalformedIR, "<%s> is not closed", name)
		}
		bodies[name] = rest[:stop]
		rest = rest[stop+len(closeTag):]
	}
	var missing []string
	for _, s := range outputSections {
		if _, ok := bodies[s]; !ok {
			missing = append(missing, "<"+string(s)+">")
		}
	}
	if len(missing) > 0 {
		return nil, contractError(ErrMissingSection, "%s", strings.Join(missing, ", "))
	}
	return bodies, nil
}

// decodeSection decodes a helper section body; on failure it records a
// diagnostic and returns nil (the empty array).
func decodeSection[T any](section Section, body string, diags *[]Diagnostic) []T {
	fail := func(detail string) []T {
		*diags = append(*diags, Diagnostic{Section: section, Index: -1, Code: CodeInvalidHelperOutput, Detail: detail})
		return nil
	}
	payload, ok := extractJSONArray(body)
	if !ok {
		return fail("no JSON array found in section body")
	}
	if payload == "" {
		return nil
	}
	var items []T
	if err := json.Unmarshal([]byte(payload), &items); err != nil {
		return fail(err.Error())
	}
	if len(items) == 0 {
		return nil
	}
	return items
}

// extractJSONArray finds the JSON array text in a section body: the trimmed
// body itself when it starts with '[', otherwise the content of the first
// Markdown code fence when that starts with '['. An empty body yields ("",
// true). It reports false when there is no candidate.
func extractJSONArray(body string) (string, bool) {
	t := strings.TrimSpace(body)
	if t == "" {
		return "", true
	}
	if strings.HasPrefix(t, "[") {
		return t, true
	}
	start := strings.Index(t, "```")
	if start < 0 {
		return "", false
	}
	afterOpen := t[start+3:]
	nl := strings.IndexByte(afterOpen, '\n')
	if nl < 0 {
		return "", false
	}
	content := afterOpen[nl+1:]
	stop := strings.Index(content, "```")
	if stop < 0 {
		return "", false
	}
	inner := strings.TrimSpace(content[:stop])
	if !strings.HasPrefix(inner, "[") {
		return "", false
	}
	return inner, true
}

// excerpt shortens s for error messages.
func excerpt(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
