package policy

import (
	"slices"
	"strings"
)

// NetworkAllowed reports whether argv is granted the network inside the
// sandbox: it starts, element by element, with a prefix in
// Commands.Network. Whether argv may run at all is Evaluate's decision.
func (p *Policy) NetworkAllowed(argv []string) bool {
	if p == nil || len(argv) == 0 {
		return false
	}
	for _, prefix := range p.Commands.Network {
		if len(prefix) > 0 && len(argv) >= len(prefix) && slices.Equal(prefix, argv[:len(prefix)]) {
			return true
		}
	}
	return false
}

func validNetworkPrefix(prefix []string) error {
	if len(prefix) == 0 {
		return errEmptyPrefix
	}
	if slices.Contains(prefix, "") {
		return errEmptyArgument
	}
	return nil
}

// writeNetwork adds the network grants to the canonical JSON; nothing when
// there are none, so policies without grants keep their hash.
func writeNetwork(b *strings.Builder, grants [][]string) {
	if len(grants) == 0 {
		return
	}
	b.WriteString(`,"network":[`)
	for i, prefix := range canonicalPrefixes(grants) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeStrings(b, prefix)
	}
	b.WriteByte(']')
}
