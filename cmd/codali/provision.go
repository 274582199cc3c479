package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/natsauth"
)

// cmdProvision creates (or, with --update, brings to this configuration)
// every stream, bucket and durable consumer, then exits. It is the job of
// the provisioning identity: services started with --provision=none only
// bind what it made.
func cmdProvision(ctx context.Context, c *cli, args []string) int {
	var conn bus.ConnectOptions
	fs := c.newFlags("provision", "provision [--config FILE] [--replicas N] [--update]")
	conn.Bind(fs, c.getenv)
	cfgPath := fs.String("config", c.getenv("CODALI_CONFIG"), "codali.config.json (env CODALI_CONFIG): RAO retention")
	replicas := fs.Int("replicas", 1, "stream and bucket replicas (3 on a cluster)")
	update := fs.Bool("update", true, "bring existing streams, buckets and consumers to this configuration (false: only create what is missing)")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		c.errorf("provision: unexpected arguments %v", pos)
		return exitUsage
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		c.errorf("provision: %v", err)
		return exitUsage
	}
	if err := conn.Validate(); err != nil {
		c.errorf("provision: %v", err)
		return exitUsage
	}
	// Provisioning is the provisioner identity's job: unless the user says
	// otherwise, its replies come to the provisioner's inboxes.
	conn.DefaultInboxPrefix = natsauth.InboxPrefixFor(conn.UserName(), natsauth.Provisioner)
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("provision: %v", err)
		return exitUsage
	}
	defer cl.close()
	topo := app.TopologyFor(cfg, *replicas)
	topo.Update = *update
	// On a fresh cluster the first attempts time out while JetStream
	// elects its leaders: retried with backoff for up to three minutes.
	pctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := bus.ProvisionRetrying(pctx, log, cl.js, topo, nil, nil); err != nil {
		c.errorf("provision: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "codali: streams, buckets and consumers provisioned (replicas %d)\n", *replicas)
	return exitOK
}
