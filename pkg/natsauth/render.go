package natsauth

import (
	"fmt"
	"strings"
)

// RenderNSC renders the identities as calls of nsc-codali.sh's add_user
// function: add_user NAME PUBLISH... -- SUBSCRIBE... (the script sources
// the result; deploy/k8s/nats/permissions.sh is this output).
func RenderNSC() string {
	var b strings.Builder
	b.WriteString("# Generated from pkg/natsauth (Identities); do not edit. Regenerate with\n")
	b.WriteString("#   go test ./pkg/natsauth -run TestDeployPermissionsMatch -update\n")
	b.WriteString("# Sourced by nsc-codali.sh, which defines add_user NAME PUB... -- SUB...\n")
	for _, id := range Identities() {
		fmt.Fprintf(&b, "\n# %s: %s\n", id.Name, id.Doc)
		fmt.Fprintf(&b, "add_user %s \\\n", id.Name)
		for _, s := range id.Publish {
			fmt.Fprintf(&b, "  '%s' \\\n", s)
		}
		b.WriteString("  --")
		for _, s := range id.Subscribe {
			fmt.Fprintf(&b, " \\\n  '%s'", s)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ServerAccounts renders a nats-server configuration block with the
// account CODALI (JetStream enabled) holding one password user per
// identity with its allow lists; passwords maps a user name to its
// password (identities without one are left out). It suits a
// configuration-file deployment and the tests; production uses operator
// mode (RenderNSC).
func ServerAccounts(passwords map[string]string) string {
	var b strings.Builder
	b.WriteString("accounts {\n  CODALI {\n    jetstream: enabled\n    users: [\n")
	for _, id := range Identities() {
		pw, ok := passwords[id.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "      {user: %q, password: %q, permissions: {publish: {allow: %s}, subscribe: {allow: %s}}}\n",
			id.Name, pw, list(id.Publish), list(id.Subscribe))
	}
	b.WriteString("    ]\n  }\n}\n")
	return b.String()
}

func list(subjects []string) string {
	q := make([]string, len(subjects))
	for i, s := range subjects {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
