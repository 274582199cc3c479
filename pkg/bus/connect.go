package bus

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
)

// DefaultURL is the NATS URL used when neither --nats nor NATS_URL is set.
const DefaultURL = "nats://127.0.0.1:4222"

// ConnectOptions says how to reach and authenticate to NATS.
type ConnectOptions struct {
	// URL is one or more comma-separated server URLs.
	URL string
	// Name is the connection name shown in server monitoring.
	Name string
	// CredsFile is a NATS credentials file (JWT + nkey seed).
	CredsFile string
	// User and Password authenticate with a username and password.
	User, Password string
	// Token authenticates with a token.
	Token string
	// TLSCA verifies the server with this CA file.
	TLSCA string
	// TLSCert and TLSKey present a client certificate.
	TLSCert, TLSKey string
	// Timeout bounds the initial connection. Default 10s.
	Timeout time.Duration
	// InboxPrefix is the prefix of the connection's reply inboxes (core
	// requests, JetStream API replies, pull consumers, KV watchers and
	// object reads all use it). With auth, each identity may subscribe
	// only to its own prefix (natsauth.InboxPrefix). Set by --inbox-prefix
	// or NATS_INBOX_PREFIX; DefaultInboxPrefix otherwise.
	InboxPrefix string
	// DefaultInboxPrefix is the prefix used when InboxPrefix is not set:
	// the caller's identity's. Empty keeps the NATS default, _INBOX.
	DefaultInboxPrefix string
	// Log, when set, receives the connection's asynchronous errors (a
	// permission the server refused, a slow consumer), its losses and its
	// reconnects. Without it nats.go drops them unreported.
	Log *slog.Logger

	getenv func(string) string
}

// Bind registers the connection flags on fs. Values not given as flags
// come from the environment (NATS_URL, NATS_CREDS, NATS_USER,
// NATS_PASSWORD, NATS_TOKEN, NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY,
// NATS_INBOX_PREFIX),
// applied by Validate and Connect after parsing — never as flag defaults,
// so `--help` and flag errors cannot print a secret.
func (o *ConnectOptions) Bind(fs *flag.FlagSet, getenv func(string) string) {
	o.getenv = getenv
	fs.StringVar(&o.URL, "nats", "", "NATS server URL(s), comma-separated (env NATS_URL, default "+DefaultURL+")")
	fs.StringVar(&o.CredsFile, "creds", "", "NATS credentials file (env NATS_CREDS)")
	fs.StringVar(&o.User, "user", "", "NATS user (env NATS_USER)")
	fs.StringVar(&o.Password, "password", "", "NATS password (env NATS_PASSWORD; prefer the variable)")
	fs.StringVar(&o.Token, "token", "", "NATS token (env NATS_TOKEN; prefer the variable)")
	fs.StringVar(&o.TLSCA, "tls-ca", "", "CA file to verify the NATS server (env NATS_TLS_CA)")
	fs.StringVar(&o.TLSCert, "tls-cert", "", "client certificate file (env NATS_TLS_CERT)")
	fs.StringVar(&o.TLSKey, "tls-key", "", "client key file (env NATS_TLS_KEY)")
	fs.StringVar(&o.InboxPrefix, "inbox-prefix", "", "reply inbox prefix: the one the NATS identity may subscribe to, _INBOX_<identity> (env NATS_INBOX_PREFIX; default that of the identity this program connects as)")
}

// withEnv fills the fields not set by flags from the environment given to
// Bind, and the URL default.
func (o ConnectOptions) withEnv() ConnectOptions {
	if o.getenv != nil {
		for _, f := range []struct {
			dst *string
			env string
		}{
			{&o.URL, "NATS_URL"}, {&o.CredsFile, "NATS_CREDS"}, {&o.User, "NATS_USER"}, {&o.Password, "NATS_PASSWORD"},
			{&o.Token, "NATS_TOKEN"}, {&o.TLSCA, "NATS_TLS_CA"}, {&o.TLSCert, "NATS_TLS_CERT"}, {&o.TLSKey, "NATS_TLS_KEY"},
			{&o.InboxPrefix, "NATS_INBOX_PREFIX"},
		} {
			if *f.dst == "" {
				*f.dst = o.getenv(f.env)
			}
		}
		if o.URL == "" {
			o.URL = DefaultURL
		}
	}
	if o.InboxPrefix == "" {
		o.InboxPrefix = o.DefaultInboxPrefix
	}
	return o
}

// Resolved returns the options with the environment applied (see Bind).
func (o ConnectOptions) Resolved() ConnectOptions { return o.withEnv() }

// Validate reports every inconsistent combination, each wrapping
// ErrInvalidConfig.
func (o ConnectOptions) Validate() error {
	o = o.withEnv()
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if o.URL == "" {
		bad("a NATS URL is required")
	} else if u, err := url.Parse(firstURL(o.URL)); err != nil || u.Host == "" {
		bad("NATS URL %q is not a URL like nats://host:4222", Redacted(o.URL))
	}
	if (o.User == "") != (o.Password == "") {
		bad("user and password go together")
	}
	methods := 0
	for _, set := range []bool{o.CredsFile != "", o.User != "", o.Token != ""} {
		if set {
			methods++
		}
	}
	if methods > 1 {
		bad("choose one of creds file, user/password and token")
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		bad("tls-cert and tls-key go together")
	}
	if o.InboxPrefix != "" && !validInboxPrefix(o.InboxPrefix) {
		bad("inbox prefix %q is not a subject without wildcards, like _INBOX_cli", o.InboxPrefix)
	}
	return errors.Join(errs...)
}

// validInboxPrefix reports whether p is a literal subject: dot-separated
// non-empty tokens without wildcards or whitespace.
func validInboxPrefix(p string) bool {
	for _, tok := range strings.Split(p, ".") {
		if tok == "" || strings.ContainsAny(tok, " \t\r\n*>") {
			return false
		}
	}
	return true
}

func firstURL(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i]
		}
	}
	return s
}

// UserName returns the NATS user the options authenticate as: User, or
// the name in the creds file's user JWT (nsc names a user so), "" when it
// is not known (a token, no auth, a creds file that cannot be read or
// parsed — Connect then reports the problem). Nothing secret is returned.
func (o ConnectOptions) UserName() string {
	o = o.withEnv()
	if o.User != "" || o.CredsFile == "" {
		return o.User
	}
	raw, err := os.ReadFile(o.CredsFile)
	if err != nil {
		return ""
	}
	token, err := jwt.ParseDecoratedJWT(raw)
	if err != nil {
		return ""
	}
	claims, err := jwt.DecodeUserClaims(token)
	if err != nil {
		return ""
	}
	return claims.Name
}

// Redacted returns the URL with any password replaced, for logs.
func Redacted(raw string) string {
	u, err := url.Parse(firstURL(raw))
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	return u.String()
}

// Connect validates the options and connects with reconnects enabled
// forever (a worker should ride out server restarts).
func Connect(o ConnectOptions) (*nats.Conn, error) {
	o = o.withEnv()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.Timeout(o.Timeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.RetryOnFailedConnect(false),
	}
	if o.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(o.InboxPrefix))
	}
	if o.Log != nil {
		opts = append(opts, nats.ErrorHandler(logAsyncErrors(o.Log)))
		opts = append(opts, logConnectionChanges(o.Log)...)
	}
	switch {
	case o.CredsFile != "":
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	case o.User != "":
		opts = append(opts, nats.UserInfo(o.User, o.Password))
	case o.Token != "":
		opts = append(opts, nats.Token(o.Token))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	if o.TLSCert != "" {
		opts = append(opts, nats.ClientCert(o.TLSCert, o.TLSKey))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("could not connect to NATS at %s: %w", Redacted(o.URL), err)
	}
	return nc, nil
}
