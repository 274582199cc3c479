package policy

import (
	"slices"
	"strings"
	"testing"
)

// invisibles are code points a file name can carry without showing them.
var invisibles = []rune{0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202E, 0x2060, 0x2063, 0xFEFF, 0x00AD,
	0x034F, 0x180E, 0xFE0F, 0xE0001, 0xE0067, 0x115F, 0x3164, 0xFFA0}

// FuzzGitSpellings builds ".git" in any case, with an invisible character
// at any place and trailing dots or spaces, below any clean prefix: the
// gate never accepts a read, write or command argument naming it.
func FuzzGitSpellings(f *testing.F) {
	f.Add("", uint8(0), uint16(0), uint8(0), uint8(0))
	f.Add("a/b", uint8(0b1111), uint16(3), uint8(2), uint8(1))
	f.Add("src", uint8(0b0101), uint16(11), uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, prefix string, upper uint8, inv uint16, at uint8, trail uint8) {
		name := []rune(".git")
		for i := range name {
			if upper&(1<<i) != 0 {
				name[i] = []rune(strings.ToUpper(string(name[i])))[0]
			}
		}
		if inv != 0 {
			pos := int(at) % (len(name) + 1)
			name = slices.Insert(name, pos, invisibles[int(inv)%len(invisibles)])
		}
		seg := string(name) + []string{"", ".", " ", "..", ". "}[int(trail)%5]
		if c, problem := cleanPath(prefix); prefix != "" && (problem != pathOK || c != prefix || strings.ContainsAny(prefix, "\x00")) {
			return // only clean relative prefixes
		}
		p := seg + "/config"
		if prefix != "" {
			p = prefix + "/" + p
		}
		zero := &Policy{Commands: Commands{Allow: [][]string{{"cat"}}}}
		for _, call := range []ToolCall{
			{Tool: ToolReadFile, Paths: []string{p}},
			{Tool: ToolWriteFile, Paths: []string{p}, Writes: true},
			{Tool: ToolRunCommand, Command: []string{"cat", p}},
		} {
			if d := zero.Evaluate(call); !d.Blocked {
				t.Fatalf("%s of %q allowed: %+v", call.Tool, p, d)
			}
		}
	})
}

// FuzzEvaluateCommand: the gate never panics on any argv, decides the
// same way twice, and under the default policy lets no flag through that
// the flag allowlist does not list.
func FuzzEvaluateCommand(f *testing.F) {
	f.Add("go\x00test\x00./...")
	f.Add("go\x00test\x00-exec=evil")
	f.Add("go\x00build\x00-ldflags=-extld=/tmp/x")
	f.Add("gofmt\x00-w\x00.git/config")
	f.Add("sh\x00-c\x00rm -rf /")
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\x00")
		p := Default()
		d := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: argv})
		if again := p.Evaluate(ToolCall{Tool: ToolRunCommand, Command: argv}); !slices.Equal(d.Reasons, again.Reasons) || d.Blocked != again.Blocked {
			t.Fatalf("non-deterministic: %+v vs %+v", d, again)
		}
		if d.Blocked {
			return
		}
		key, flags := p.flagRule(argv)
		if key == "" {
			t.Fatalf("%q allowed without a flag rule", argv)
		}
		for _, a := range argv[len(strings.Split(key, " ")):] {
			if a == "--" {
				break
			}
			if name, _, _ := strings.Cut(a, "="); strings.HasPrefix(a, "-") && !slices.Contains(flags, name) {
				t.Fatalf("%q allowed with unlisted flag %q", argv, a)
			}
		}
	})
}
