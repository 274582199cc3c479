package bus

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// EmbeddedConfig configures an in-process nats-server with JetStream.
type EmbeddedConfig struct {
	// Host is the client listen host. Defaults to 127.0.0.1 (loopback only).
	Host string
	// Port is the client listen port. 0 keeps the NATS default (4222);
	// -1 picks a random free port.
	Port int
	// StoreDir is where JetStream keeps streams on disk. Required.
	StoreDir string
	// ServerName names the server in logs and advisories. Defaults to "codali".
	ServerName string
	// ReadyTimeout bounds how long Start waits for the server to accept
	// connections. Defaults to 10s.
	ReadyTimeout time.Duration
	// MaxPayload is the largest message the server accepts, in bytes.
	// Defaults to 8 MiB so that events up to the envelope limit plus headers fit.
	MaxPayload int32
	// ClusterName, when set, makes the server a member of a JetStream
	// cluster of that name; ServerName must then be unique in the cluster.
	ClusterName string
	// ClusterPort is the port the server listens on for routes from the
	// other members (on Host); -1 picks a random free port.
	ClusterPort int
	// Routes are the other members' route URLs, nats-route://host:port.
	Routes []string
	// ConfigFile, when set, is a nats-server configuration file (accounts,
	// users and their permissions) read first; the fields above override
	// its listen address, store and payload settings.
	ConfigFile string
}

func (c *EmbeddedConfig) setDefaults() {
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.ServerName == "" {
		c.ServerName = "codali"
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 10 * time.Second
	}
	if c.MaxPayload <= 0 {
		c.MaxPayload = 8 << 20
	}
}

// Validate reports every problem with the configuration at once.
func (c EmbeddedConfig) Validate() error {
	var errs []error
	if c.StoreDir == "" {
		errs = append(errs, fmt.Errorf("%w: embedded server needs a store directory", ErrInvalidConfig))
	}
	if c.Port < -1 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("%w: port %d out of range", ErrInvalidConfig, c.Port))
	}
	if c.Host != "" && net.ParseIP(c.Host) == nil && c.Host != "localhost" {
		errs = append(errs, fmt.Errorf("%w: host %q is not an IP address or localhost", ErrInvalidConfig, c.Host))
	}
	if c.ClusterName != "" && (c.ClusterPort < -1 || c.ClusterPort > 65535 || c.ClusterPort == 0) {
		errs = append(errs, fmt.Errorf("%w: cluster port %d out of range", ErrInvalidConfig, c.ClusterPort))
	}
	if c.ClusterName == "" && len(c.Routes) > 0 {
		errs = append(errs, fmt.Errorf("%w: routes need a cluster name", ErrInvalidConfig))
	}
	for _, r := range c.Routes {
		if u, err := url.Parse(r); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("%w: route %q is not a URL like nats-route://host:6222", ErrInvalidConfig, r))
		}
	}
	return errors.Join(errs...)
}

// Embedded is a running in-process nats-server with JetStream enabled.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a nats-server in this process and waits until it
// accepts connections. It returns an error wrapping ErrInvalidConfig for bad
// configuration and ErrServerStart when the server does not come up in time.
func StartEmbedded(cfg EmbeddedConfig) (*Embedded, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := &server.Options{}
	if cfg.ConfigFile != "" {
		var err error
		if opts, err = server.ProcessConfigFile(cfg.ConfigFile); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidConfig, cfg.ConfigFile, err)
		}
	}
	opts.ServerName, opts.Host, opts.Port = cfg.ServerName, cfg.Host, cfg.Port
	opts.JetStream, opts.StoreDir, opts.MaxPayload = true, cfg.StoreDir, cfg.MaxPayload
	opts.NoSigs, opts.NoLog = true, true
	if cfg.ClusterName != "" {
		opts.Cluster = server.ClusterOpts{Name: cfg.ClusterName, Host: cfg.Host, Port: cfg.ClusterPort}
		for _, r := range cfg.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("%w: route %q: %w", ErrInvalidConfig, r, err)
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServerStart, err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(cfg.ReadyTimeout) {
		srv.Shutdown()
		return nil, fmt.Errorf("%w: not ready after %s (is %s:%s in use?)", ErrServerStart, cfg.ReadyTimeout, cfg.Host, strconv.Itoa(cfg.Port))
	}
	return &Embedded{srv: srv}, nil
}

// ClientURL is the nats:// URL clients connect to.
func (e *Embedded) ClientURL() string { return e.srv.ClientURL() }

// Server exposes the underlying server for advanced use (monitoring, tests).
func (e *Embedded) Server() *server.Server { return e.srv }

// Shutdown stops the server and waits for it to finish. Safe to call twice.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
