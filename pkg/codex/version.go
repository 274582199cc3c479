package codex

// Version is the protocol version Encode emits.
const Version = "1.2"

// dialect is the feature level a payload is decoded with.
type dialect int

const (
	// dialect10: INSIGHTS and DECISIONS are free-form tokens; OPTIONAL is
	// kept verbatim in Extensions.
	dialect10 dialect = iota
	// dialect11: structured INSIGHTS and DECISIONS; OPTIONAL (which may be
	// absent) is kept verbatim in Extensions, since vendor, encoder, session,
	// checksum and policy were defined in 1.2.
	dialect11
	// dialect12: everything typed.
	dialect12
)

// dialectFor maps the header version to a dialect. supported is false for a
// missing or unknown version, which is decoded best-effort as 1.2.
func dialectFor(doc *document) (d dialect, supported bool) {
	if !doc.hasVersion {
		return dialect12, false
	}
	switch doc.version {
	case "1.0":
		return dialect10, true
	case "1.1":
		return dialect11, true
	case "1.2":
		return dialect12, true
	default:
		return dialect12, false
	}
}
