package redact

import (
	"strings"
	"testing"
)

// TestSplitCommandInText: the same in text: JSON text on one line or
// several, and YAML (a Kubernetes container, a Compose service).
func TestSplitCommandInText(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"cmd":"docker","args":["login","-p","SECRET"]}`, `{"cmd":"docker","args":["login","-p","[REDACTED:password]"]}`},
		{`{"command": "mysql", "args": ["-uroot", "-pSECRET"]}`, `{"command": "mysql", "args": ["-uroot", "-p[REDACTED:password]"]}`},
		{"{\n  \"command\": [\"mysql\"],\n  \"args\": [\"-uroot\", \"-pSECRET\"]\n}", "{\n  \"command\": [\"mysql\"],\n  \"args\": [\"-uroot\", \"-p[REDACTED:password]\"]\n}"},
		{"containers:\n- name: db\n  command: [\"mysql\"]\n  args: [\"-uroot\", \"-pSECRET\"]\n", "containers:\n- name: db\n  command: [\"mysql\"]\n  args: [\"-uroot\", \"-p[REDACTED:password]\"]\n"},
		{"  args:\n    - login\n    - -p\n    - SECRET\n  command:\n    - docker\n", "  args:\n    - login\n    - -p\n    - [REDACTED:password]\n  command:\n    - docker\n"},
		{"command: mysql\nargs:\n- -uroot\n- '-pSECRET'\n", "command: mysql\nargs:\n- -uroot\n- '-p[REDACTED:password]'\n"},
		{"command: mysql\nargs: [-pSECRET]\ncommand: ls\n", "command: mysql\nargs: [-p[REDACTED:password]]\ncommand: ls\n"},
		{"command: [\"mysql\"]  # db\nargs: [\"-pSECRET\"] # x\n", "command: [\"mysql\"]  # db\nargs: [\"-p[REDACTED:password]\"] # x\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	for _, in := range []string{
		"command: [\"docker\"]\nargs: [\"run\", \"-p\", \"8080:80\"]\n",
		"- command: mysql\n- args: [\"-pX\"]\n",
		"command: ls\nargs: [\"-pX\"]\nx:\n  command: mysql\n",
		"spec:\n  command: [\"mysql\"]\nargs: [\"-p3306\"]\n",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestSplitCommandAfterUnclosedQuote: a quote running over lines in a
// command or args list, never closed or closed far on, is read again as
// ending at its line's end: the members on the lines after it are still
// read, and the list left open on its line still names the command.
func TestSplitCommandAfterUnclosedQuote(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"args: [\"a\ncommand: mysql\nargs: [-pS3cret]\n\"]",
		"cmd: ['a\ncommand: [mysql]\nargs: [-uroot,\n -pS3cret]\n']\n",
		"args: [\"a\ncommand: mysql\nargs: [-pS3cret]\n",
		"cmd: [sh, 'a\ncommand: mysql\nargs: [-pS3cret]\n",
		"args: [\"a\ncommand: [mysql]\nargs: [-uroot,\n -pS3cret]\n",
		"command: [mysql, 'x\nargs: [-pS3cret]\n",
		"command: [\"mysql\", \"x\nargs: [-uroot,\n  -pS3cret]\n",
		"cmd: ['a\ncommand: ['mysql',\n  '-uroot']\nargs: ['-pS3cret']\n",
		"args: [\"a\ncommand: [\"mysql\",\n  \"-uroot\"]\nargs: [\"-pS3cret\"]\n",
	} {
		if got := r.String(in); strings.Contains(got, "S3cret") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
}
