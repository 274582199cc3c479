package codex

import "strings"

// Validate runs the RL4-CODEX validation algorithm on payload and returns its
// diagnostics, all at ERROR level; an empty result means the payload is
// valid. The steps are:
//  1. the payload starts with <RL4-CODEX (ERROR:unparseable);
//  2. the envelope and blocks parse (ERROR:unparseable);
//  3. the five required blocks are present, empty allowed
//     (ERROR:missing-block:<name>);
//  4. known blocks are in canonical order and not repeated
//     (ERROR:block-order:<name>, ERROR:duplicate-block:<name>);
//  5. the payload is at most MaxPayloadBytes bytes (ERROR:size-exceeded);
//  6. no block holds raw code, JSON, YAML, base64, prose or non-ASCII text
//     (ERROR:raw-content:<token>) and every identifier is namespace#hex
//     (ERROR:hash-violation:<token>);
//  7. OPTIONAL, if present, is at most MaxOptionalChars characters
//     (ERROR:optional-overflow).
//
// Step 5 is checked first: an oversized payload is not inspected further.
// Steps 1–2 stop validation when they fail. Diagnostics are in step order,
// then payload order. Validate never panics.
func Validate(payload string) []Diagnostic {
	return validate(payload, false).diags
}

// blockTokens are the tokens of one element.
type blockTokens struct {
	count int     // tokens found
	clean []token // tokens that passed step 6
}

// validation is the outcome of validate.
type validation struct {
	doc    *document              // nil when steps 1, 2 or 5 failed
	blocks map[string]blockTokens // first occurrence of each known block
	diags  []Diagnostic
}

// validate runs the algorithm. When decoding, step 7 is skipped: the decoder
// truncates OPTIONAL with WARN:optional-truncated instead (spec §6).
func validate(payload string, decoding bool) validation {
	var v validation
	if len(payload) > MaxPayloadBytes {
		v.diags = append(v.diags, errorDiag(CodeSizeExceeded, "",
			"payload is larger than 10240 bytes"))
		return v
	}
	doc, msg := parseDocument(normalize(payload))
	if doc == nil {
		v.diags = append(v.diags, errorDiag(CodeUnparseable, "", msg))
		return v
	}
	v.doc = doc
	v.checkStructure()
	v.checkContent()
	if !decoding {
		if opt, ok := doc.first(BlockOptional); ok && len(opt.content) > MaxOptionalChars {
			v.diags = append(v.diags, errorDiag(CodeOptionalOverflow, "",
				"OPTIONAL block is longer than 512 characters"))
		}
	}
	return v
}

// checkStructure runs steps 3 and 4.
func (v *validation) checkStructure() {
	for _, name := range requiredBlocks() {
		if _, ok := v.doc.first(name); !ok {
			v.diags = append(v.diags, errorDiag(CodeMissingBlock, name, "required block "+name+" is absent"))
		}
	}
	seen := map[string]int{}
	highest := -1
	for _, e := range v.doc.elements {
		idx := canonicalIndex(e.name)
		if idx < 0 {
			continue
		}
		seen[e.name]++
		if seen[e.name] == 2 {
			v.diags = append(v.diags, errorDiag(CodeDuplicateBlock, e.name, "block "+e.name+" appears more than once"))
		}
		if seen[e.name] > 1 {
			continue
		}
		if idx < highest {
			v.diags = append(v.diags, errorDiag(CodeBlockOrder, e.name, "block "+e.name+" is out of canonical order"))
			continue
		}
		highest = idx
	}
}

// checkContent runs step 6 on every element, known or not, and keeps the
// tokens of the first occurrence of each known block.
func (v *validation) checkContent() {
	v.blocks = map[string]blockTokens{}
	for _, e := range v.doc.elements {
		tokens := tokenize(e.name, e.content)
		bad := make([]bool, len(tokens))
		for i, t := range tokens {
			if d, found := checkToken(t); found {
				v.diags = append(v.diags, d)
				bad[i] = true
			}
		}
		for _, run := range proseRuns(tokens) {
			words := make([]string, 0, run[1])
			for i := run[0]; i < run[0]+run[1]; i++ {
				words = append(words, tokens[i].text)
				bad[i] = true
			}
			v.diags = append(v.diags, errorDiag(CodeRawContent, strings.Join(words, " "),
				"bare words separated by spaces read as prose"))
		}
		if _, done := v.blocks[e.name]; done || canonicalIndex(e.name) < 0 {
			continue
		}
		bt := blockTokens{count: len(tokens)}
		for i, t := range tokens {
			if !bad[i] {
				bt.clean = append(bt.clean, t)
			}
		}
		v.blocks[e.name] = bt
	}
}
