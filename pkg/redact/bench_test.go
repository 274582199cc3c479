package redact

import (
	"strings"
	"testing"
)

func BenchmarkString(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	clean := strings.Repeat("func (s *Server) Handle(ctx context.Context, req *Request) error { return s.next(ctx, req) }\n", 40)
	prose := strings.Repeat("Rotate the token before the release; the password policy and API key handling are documented.\n", 40)
	oneLine := strings.Repeat(`{"step":"build","message":"token budget ok, password policy unchanged, key rotated"},`, 45)
	dirty := clean + "Authorization: Bearer abcdef0123456789abcdef\n" + awsKeyID + " nats://u:p@h:4222 " + ghToken + "\n" + clean
	cases := []struct {
		name string
		in   string
	}{
		{name: "clean_code_3.6KB", in: clean},
		{name: "prose_with_hint_words_3.8KB", in: prose},
		{name: "single_line_with_hint_words_3.8KB", in: oneLine},
		{name: "with_secrets_7.4KB", in: dirty},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				r.String(c.in)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"run":"r1","tool":"run_command","command":["go","test","./..."],"env":{"GITHUB_TOKEN":"` + ghToken +
		`","PATH":"/usr/bin"},"output":"ok  \tgithub.com/x/y\t0.01s\n","usage":{"prompt_tokens":1200,"max_tokens":4096}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := r.JSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}
