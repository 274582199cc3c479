package codex

import "fmt"

// DecodeOption configures Decode.
type DecodeOption func(*decodeOptions)

type decodeOptions struct {
	partial bool
}

// WithPartial makes Decode return the blocks that parsed even when the
// payload has blocking errors other than ERROR:size-exceeded and
// ERROR:unparseable (a missing required block, a hash violation, …). The
// error is still returned; tokens that failed validation are left out of the
// state and missing blocks are listed in CognitiveState.Unavailable.
func WithPartial() DecodeOption {
	return func(o *decodeOptions) { o.partial = true }
}

// Decode validates payload and reconstructs its CognitiveState.
//
// It normalises the payload, extracts the blocks, runs the validation
// algorithm (see Validate; an oversized OPTIONAL is truncated with
// WARN:optional-truncated instead of rejected), then maps tokens to fields.
// Absent values are Unknown, never zero. Unknown top-level tags are kept in
// OptionalMetadata.UnknownBlocks, unknown tokens in UnknownTokens.
//
// The diagnostics list every warning and error. When validation reports an
// ERROR, Decode returns a nil state and an error wrapping a *PayloadError,
// which matches the sentinels of the errors found (ErrMissingBlock,
// ErrHashViolation, …) and ErrInvalidPayload through errors.Is. With
// WithPartial the state is returned alongside that error, unless the payload
// is oversized or unparseable. Decode never panics.
func Decode(payload string, opts ...DecodeOption) (*CognitiveState, []Diagnostic, error) {
	var cfg decodeOptions
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	v := validate(payload, true)
	if v.doc == nil {
		return nil, v.diags, decodeError(v.diags)
	}
	d := newDecoder(v.doc, v.diags)
	blocking := HasErrors(d.diags)
	if blocking && !cfg.partial {
		return nil, d.diags, decodeError(d.diags)
	}
	d.decodeBlocks(v)
	if blocking {
		return d.st, d.diags, decodeError(d.diags)
	}
	return d.st, d.diags, nil
}

func decodeError(diags []Diagnostic) error {
	own := append([]Diagnostic(nil), diags...)
	return fmt.Errorf("could not decode RL4-CODEX payload: %w", &PayloadError{Diagnostics: own})
}

// decoder maps validated tokens onto a CognitiveState.
type decoder struct {
	doc     *document
	st      *CognitiveState
	diags   []Diagnostic
	dialect dialect
	seen    map[string]bool // single-valued fields already set, "BLOCK.key"
}

func newDecoder(doc *document, diags []Diagnostic) *decoder {
	d := &decoder{doc: doc, st: newCognitiveState(), diags: diags, seen: map[string]bool{}}
	var supported bool
	d.dialect, supported = dialectFor(doc)
	d.st.VersionSupported = supported
	if doc.hasVersion && doc.version != "" {
		d.st.Version = Value(doc.version)
	}
	if !supported {
		msg := "no v attribute in the root tag; decoded as " + Version
		if doc.hasVersion {
			msg = "version " + cleanDetail(doc.version) + " is not supported; decoded best-effort as " + Version
		}
		d.diags = append(d.diags, warnDiag(CodeUnsupportedVersion, "", msg))
	}
	return d
}

// decodeBlocks runs the block parsers in canonical order.
func (d *decoder) decodeBlocks(v validation) {
	parsers := [5]func([]token){d.data, d.timeline, d.context, d.insights, d.decisions}
	for i, name := range requiredBlocks() {
		bt, ok := v.blocks[name]
		if !ok {
			d.st.Unavailable = append(d.st.Unavailable, name)
			continue
		}
		if bt.count == 0 {
			d.warn(CodeBlockEmpty, name, "block "+name+" is empty; its fields are UNKNOWN")
			d.st.Unavailable = append(d.st.Unavailable, name)
			continue
		}
		parsers[i](bt.clean)
	}
	if bt, ok := v.blocks[BlockOptional]; ok {
		if bt.count == 0 {
			d.warn(CodeBlockEmpty, BlockOptional, "block OPTIONAL is empty")
		} else {
			d.optional(d.truncateOptional(bt.clean))
		}
	}
	for _, e := range d.doc.elements {
		if canonicalIndex(e.name) < 0 {
			d.st.OptionalMetadata.UnknownBlocks = append(d.st.OptionalMetadata.UnknownBlocks,
				TaggedBlock{Tag: e.name, Content: e.content})
		}
	}
	d.verifyChecksum()
}

// truncateOptional keeps the leading tokens whose canonical rendering
// (joined with " | ") fits in MaxOptionalChars, when the block is too long.
func (d *decoder) truncateOptional(tokens []token) []token {
	opt, _ := d.doc.first(BlockOptional)
	if len(opt.content) <= MaxOptionalChars {
		return tokens
	}
	size := 0
	keep := 0
	for i, t := range tokens {
		next := size + len(t.text)
		if i > 0 {
			next += len(" | ")
		}
		if next > MaxOptionalChars {
			break
		}
		size, keep = next, i+1
	}
	d.warn(CodeOptionalTruncated, "", fmt.Sprintf("OPTIONAL is longer than %d characters; kept %d of %d tokens",
		MaxOptionalChars, keep, len(tokens)))
	return tokens[:keep]
}

// verifyChecksum checks a checksum of this package's form (sum#<16 hex>)
// against the normalised text from <DATA> through </DECISIONS>.
func (d *decoder) verifyChecksum() {
	sum := string(d.st.OptionalMetadata.Checksum)
	if !isOwnChecksum(sum) {
		return
	}
	data, okData := d.doc.first(BlockData)
	dec, okDec := d.doc.first(BlockDecisions)
	if !okData || !okDec || dec.end < data.start {
		return
	}
	if bodyChecksum(d.doc.normalized[data.start:dec.end]) != sum {
		d.warn(CodeChecksumMismatch, "", "checksum does not match the DATA…DECISIONS text")
	}
}

func (d *decoder) warn(c Code, detail, msg string) {
	d.diags = append(d.diags, warnDiag(c, detail, msg))
}

// malformed records WARN:data-malformed for a skipped token.
func (d *decoder) malformed(t token, msg string) {
	d.warn(CodeDataMalformed, t.text, msg)
}

// unknown keeps a token the decoder does not recognise.
func (d *decoder) unknown(block string, t token) {
	if d.st.UnknownTokens == nil {
		d.st.UnknownTokens = map[string][]string{}
	}
	d.st.UnknownTokens[block] = append(d.st.UnknownTokens[block], t.text)
	d.warn(CodeUnknownToken, t.text, "token not recognised in "+block+"; kept verbatim")
}

// claim marks a single-valued field as set; it warns and returns false when
// the field was already set by an earlier token.
func (d *decoder) claim(block, field string, t token) bool {
	id := block + "." + field
	if d.seen[id] {
		d.warn(CodeDuplicateToken, t.text, field+" already set; the first token wins")
		return false
	}
	d.seen[id] = true
	return true
}

// scalar stores a single non-empty value.
func (d *decoder) scalar(block, field string, t token, dst *Value, val string) {
	if val == "" {
		d.malformed(t, field+" has no value")
		return
	}
	if d.claim(block, field, t) {
		*dst = Value(val)
	}
}

// appendList adds the items of a list value to dst, making it known.
func appendList(dst *List[string], value string) {
	if *dst == nil {
		*dst = List[string]{}
	}
	*dst = append(*dst, splitList(value)...)
}

// eqKey returns the lower-cased key of a key=value token, or "" otherwise.
func eqKey(t token) string {
	if t.op != '=' {
		return ""
	}
	return lowerASCII(t.key)
}
