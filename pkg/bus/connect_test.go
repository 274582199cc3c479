package bus_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

func TestConnectOptions(t *testing.T) {
	cases := []struct {
		name string
		o    bus.ConnectOptions
		want string
	}{
		{"ok", bus.ConnectOptions{URL: "nats://127.0.0.1:4222"}, ""},
		{"no url", bus.ConnectOptions{}, "URL is required"},
		{"bad url", bus.ConnectOptions{URL: "::"}, "not a URL"},
		{"user without password", bus.ConnectOptions{URL: "nats://h:1", User: "u"}, "go together"},
		{"two methods", bus.ConnectOptions{URL: "nats://h:1", Token: "t", CredsFile: "c"}, "choose one"},
		{"cert without key", bus.ConnectOptions{URL: "nats://h:1", TLSCert: "c"}, "tls-cert and tls-key"},
		{"inbox prefix", bus.ConnectOptions{URL: "nats://h:1", InboxPrefix: "_INBOX_cli"}, ""},
		{"wildcard inbox prefix", bus.ConnectOptions{URL: "nats://h:1", InboxPrefix: "_INBOX.>"}, "inbox prefix"},
		{"partial wildcard inbox prefix", bus.ConnectOptions{URL: "nats://h:1", InboxPrefix: "_INBOX_a*"}, "inbox prefix"},
		{"inbox prefix ending in a dot", bus.ConnectOptions{URL: "nats://h:1", InboxPrefix: "_INBOX_cli."}, "inbox prefix"},
		{"inbox prefix with a space", bus.ConnectOptions{URL: "nats://h:1", InboxPrefix: "_INBOX cli"}, "inbox prefix"},
		{"bad default inbox prefix", bus.ConnectOptions{URL: "nats://h:1", DefaultInboxPrefix: "a..b"}, "inbox prefix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, bus.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBindReadsEnvironment(t *testing.T) {
	var o bus.ConnectOptions
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	env := map[string]string{"NATS_URL": "nats://env:4222", "NATS_TOKEN": "s3cret"}
	o.Bind(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--user", "a", "--password", "b"}); err != nil {
		t.Fatal(err)
	}
	r := o.Resolved()
	if r.URL != "nats://env:4222" || r.User != "a" || r.Password != "b" || r.Token != "s3cret" {
		t.Fatalf("%+v", r)
	}
	// Flags win over the environment; nothing secret is a flag default.
	var usage strings.Builder
	fs2 := flag.NewFlagSet("y", flag.ContinueOnError)
	fs2.SetOutput(&usage)
	var o2 bus.ConnectOptions
	o2.Bind(fs2, func(k string) string {
		return map[string]string{"NATS_PASSWORD": "pw-secret", "NATS_TOKEN": "tok-secret", "NATS_URL": "nats://u:url-secret@h:4222"}[k]
	})
	fs2.PrintDefaults()
	if s := usage.String(); strings.Contains(s, "secret") {
		t.Fatalf("usage prints a secret:\n%s", s)
	}
}

// TestInboxPrefix: the flag wins over NATS_INBOX_PREFIX, which wins over
// the caller's default; the connection's inboxes carry the prefix.
func TestInboxPrefix(t *testing.T) {
	bind := func(env map[string]string, args ...string) bus.ConnectOptions {
		t.Helper()
		o := bus.ConnectOptions{DefaultInboxPrefix: "_INBOX_default"}
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		o.Bind(fs, func(k string) string { return env[k] })
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if got := bind(nil).Resolved().InboxPrefix; got != "_INBOX_default" {
		t.Errorf("default: %q", got)
	}
	env := map[string]string{"NATS_INBOX_PREFIX": "_INBOX_env"}
	if got := bind(env).Resolved().InboxPrefix; got != "_INBOX_env" {
		t.Errorf("env: %q", got)
	}
	if got := bind(env, "--inbox-prefix", "_INBOX_flag").Resolved().InboxPrefix; got != "_INBOX_flag" {
		t.Errorf("flag: %q", got)
	}
	srv := natstest.Start(t)
	o := bind(nil)
	o.URL = srv.ClientURL()
	nc, err := bus.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if in := nc.NewInbox(); !strings.HasPrefix(in, "_INBOX_default.") {
		t.Fatalf("inbox %q", in)
	}
	if _, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), InboxPrefix: "_INBOX.>"}); !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("a wildcard prefix: %v", err)
	}
}

func TestRedacted(t *testing.T) {
	if got := bus.Redacted("nats://u:pw@h:4222"); strings.Contains(got, "pw") {
		t.Fatal(got)
	}
}

func TestConnectEmbedded(t *testing.T) {
	srv := natstest.Start(t)
	nc, err := bus.Connect(bus.ConnectOptions{URL: srv.ClientURL(), Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if _, err := bus.Connect(bus.ConnectOptions{URL: "nats://127.0.0.1:1"}); err == nil {
		t.Fatal("connecting to a closed port should fail")
	}
}

func TestEmbeddedConfigValidate(t *testing.T) {
	_, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: 70000, Host: "not a host"})
	if !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"store directory", "port", "host"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

// TestUserName: the user is --user, or the name in a creds file's JWT;
// unknown for a token or a creds file that cannot be read or parsed.
func TestUserName(t *testing.T) {
	account, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := user.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.NewUserClaims(pub)
	claims.Name = "admin"
	token, err := claims.Encode(account)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := user.Seed()
	if err != nil {
		t.Fatal(err)
	}
	creds, err := jwt.FormatUserConfig(token, seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, raw []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("admin.creds", creds)
	forged := write("forged.creds", bytes.Replace(creds, []byte(token[len(token)-8:]), []byte("AAAAAAAA"), 1))
	for _, tc := range []struct {
		name string
		o    bus.ConnectOptions
		want string
	}{
		{"user", bus.ConnectOptions{User: "cli", Password: "x"}, "cli"},
		{"creds", bus.ConnectOptions{CredsFile: good}, "admin"},
		{"token", bus.ConnectOptions{Token: "t"}, ""},
		{"no auth", bus.ConnectOptions{}, ""},
		{"missing creds", bus.ConnectOptions{CredsFile: filepath.Join(dir, "none.creds")}, ""},
		{"not a creds file", bus.ConnectOptions{CredsFile: write("junk.creds", []byte("junk"))}, ""},
		{"bad signature", bus.ConnectOptions{CredsFile: forged}, ""},
	} {
		if got := tc.o.UserName(); got != tc.want {
			t.Errorf("%s: UserName() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
