package codex

import "strings"

// Level is the severity of a Diagnostic.
type Level string

const (
	// LevelError marks a blocking problem: the payload is rejected.
	LevelError Level = "ERROR"
	// LevelWarn marks a recoverable problem: decoding goes on.
	LevelWarn Level = "WARN"
)

// Code identifies a diagnostic kind. The spec's codes are listed first; the
// others are additions of this package, documented in docs/codex.md.
type Code string

// Blocking (ERROR) codes.
const (
	// CodeSizeExceeded: payload larger than MaxPayloadBytes.
	CodeSizeExceeded Code = "size-exceeded"
	// CodeUnparseable: envelope or block structure broken.
	CodeUnparseable Code = "unparseable"
	// CodeMissingBlock: a required block is absent; Detail is its name.
	CodeMissingBlock Code = "missing-block"
	// CodeHashViolation: malformed identifier or raw path; Detail is the token.
	CodeHashViolation Code = "hash-violation"
	// CodeBlockOrder: a block appears out of canonical order; Detail is its name.
	CodeBlockOrder Code = "block-order"
	// CodeDuplicateBlock: a known block appears twice; Detail is its name.
	CodeDuplicateBlock Code = "duplicate-block"
	// CodeRawContent: code, JSON, YAML, base64, prose or non-ASCII inside a
	// block; Detail is the token.
	CodeRawContent Code = "raw-content"
	// CodeOptionalOverflow: OPTIONAL longer than MaxOptionalChars (Validate only).
	CodeOptionalOverflow Code = "optional-overflow"
)

// Recoverable (WARN) codes.
const (
	// CodeUnsupportedVersion: header version is not 1.0, 1.1 or 1.2, or absent.
	CodeUnsupportedVersion Code = "unsupported-version"
	// CodeDataMalformed: a known token has a malformed value and was skipped;
	// Detail is the token.
	CodeDataMalformed Code = "data-malformed"
	// CodeTimelineMissingCycles: TIMELINE has tokens but no cycles token.
	CodeTimelineMissingCycles Code = "timeline-missing-cycles"
	// CodeInsightRange: an insight number is outside its range; it is UNKNOWN.
	CodeInsightRange Code = "insight-range"
	// CodeBlockEmpty: a block is present but holds no token; Detail is its name.
	CodeBlockEmpty Code = "block-empty"
	// CodeOptionalTruncated: OPTIONAL was longer than MaxOptionalChars and its
	// trailing tokens were dropped.
	CodeOptionalTruncated Code = "optional-truncated"
	// CodeUnknownToken: a token the decoder does not know; it is kept verbatim
	// in CognitiveState.UnknownTokens. Detail is the token.
	CodeUnknownToken Code = "unknown-token"
	// CodeDuplicateToken: a single-valued token repeated; the first wins.
	// Detail is the repeated token.
	CodeDuplicateToken Code = "duplicate-token"
	// CodeChecksumMismatch: the OPTIONAL checksum has this package's form
	// (sum#<16 hex>) but does not match the payload.
	CodeChecksumMismatch Code = "checksum-mismatch"
)

// Diagnostic is one finding about a payload.
type Diagnostic struct {
	// Level is ERROR (blocking) or WARN (recoverable).
	Level Level `json:"level"`
	// Code is the diagnostic kind.
	Code Code `json:"code"`
	// Detail is the subject (block name or token), empty when the code has none.
	Detail string `json:"detail,omitempty"`
	// Message is a human explanation; it is not part of String.
	Message string `json:"message,omitempty"`
}

// String renders the diagnostic as LEVEL:code or LEVEL:code:detail, e.g.
// "ERROR:hash-violation:hotspots=src/api.ts".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(string(d.Level))
	b.WriteByte(':')
	b.WriteString(string(d.Code))
	if d.Detail != "" {
		b.WriteByte(':')
		b.WriteString(d.Detail)
	}
	return b.String()
}

// IsError reports whether the diagnostic is blocking.
func (d Diagnostic) IsError() bool { return d.Level == LevelError }

// HasErrors reports whether any diagnostic is blocking.
func HasErrors(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.IsError() {
			return true
		}
	}
	return false
}

// maxDetail bounds the length of a diagnostic detail.
const maxDetail = 64

func errorDiag(c Code, detail, msg string) Diagnostic {
	return Diagnostic{Level: LevelError, Code: c, Detail: cleanDetail(detail), Message: msg}
}

func warnDiag(c Code, detail, msg string) Diagnostic {
	return Diagnostic{Level: LevelWarn, Code: c, Detail: cleanDetail(detail), Message: msg}
}

// cleanDetail makes a detail printable: bytes outside printable ASCII become
// '?', and it is cut to maxDetail bytes with a "..." suffix.
func cleanDetail(s string) string {
	cut := len(s) > maxDetail
	if cut {
		s = s[:maxDetail]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if cut {
		return string(b) + "..."
	}
	return string(b)
}
