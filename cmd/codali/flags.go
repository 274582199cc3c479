package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// newFlags returns a flag set that reports errors on stderr.
func (c *cli) newFlags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("codali "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: codali %s\n\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags that may appear before or after positional
// arguments. It returns the positional arguments, or an exit code (OK for
// -h, usage otherwise) when parsing stops.
func parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			return pos, 0, true
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// client holds a connection for the client commands.
type client struct {
	nc *nats.Conn
	js jetstream.JetStream
}

// connect connects for a client command. Unless --inbox-prefix or
// NATS_INBOX_PREFIX (or the command) says otherwise, replies come to the
// inboxes of the identity the client authenticates as (--user, or the
// user name in a creds file: admin's for the operator), or of the agent
// identity (natsauth.CLI) for a token, no auth or an unknown user.
func (c *cli) connect(o bus.ConnectOptions) (*client, error) {
	o.Name = "codali-cli"
	if o.DefaultInboxPrefix == "" {
		o.DefaultInboxPrefix = natsauth.InboxPrefixFor(o.UserName(), natsauth.CLI)
	}
	o.Timeout = 5 * time.Second
	nc, err := bus.Connect(o)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("could not open JetStream: %w", err)
	}
	return &client{nc: nc, js: js}, nil
}

func (cl *client) close() { cl.nc.Close() }
