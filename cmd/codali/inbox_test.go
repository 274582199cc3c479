package main

import (
	"io"
	"testing"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natsauth/natsauthtest"
)

// TestClientInboxPrefixIsItsIdentitys: a client command's replies come to
// the inboxes of the identity it authenticates as (the operator's to
// admin's, which agents cannot read), the agent identity's for a user that
// is no identity, and NATS_INBOX_PREFIX wins.
func TestClientInboxPrefixIsItsIdentitys(t *testing.T) {
	url, pw := natsauthtest.Start(t)
	c := &cli{stdout: io.Discard, stderr: io.Discard}
	for _, tc := range []struct {
		user, env, want string
	}{
		{natsauth.Admin, "", "_INBOX_admin"},
		{natsauth.CLI, "", "_INBOX_cli"},
		{natsauth.Admin, "_INBOX_custom", "_INBOX_custom"},
	} {
		o := bus.ConnectOptions{URL: url, User: tc.user, Password: pw[tc.user], InboxPrefix: tc.env}
		cl, err := c.connect(o)
		if err != nil {
			t.Fatalf("%s: %v", tc.user, err)
		}
		if got := cl.nc.Opts.InboxPrefix; got != tc.want {
			t.Errorf("%s (override %q): inbox prefix %q, want %q", tc.user, tc.env, got, tc.want)
		}
		cl.close()
	}
}
