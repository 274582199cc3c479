package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The floor is the least a pipeline with Codali's message pattern can
// cost on this machine: an embedded JetStream server, an interest-retention
// work stream with de-duplication, four hops (requested → context → plan →
// built → passed), each a durable pull consumer that publishes its output
// with a message id and acknowledges its input only after the publish was
// acknowledged, and a recorder consumer that appends every event to a
// history stream. No domain work is done.

const floorHops = 4

// floorDriver submits runs to the floor pipeline.
type floorDriver struct {
	js jetstream.JetStream
}

func floorSubject(run string, hop int) string { return "floor." + run + ".s" + strconv.Itoa(hop) }

func (d floorDriver) terminalSubjects() []string {
	return []string{"floor.*.s" + strconv.Itoa(floorHops)}
}

func (d floorDriver) runOf(m *nats.Msg) (string, bool, string) {
	parts := strings.Split(m.Subject, ".")
	if len(parts) != 3 {
		return "", false, "unexpected subject " + m.Subject
	}
	return parts[1], true, ""
}

func (d floorDriver) submit(ctx context.Context, i int, started func(string)) error {
	run := "r" + strconv.Itoa(i)
	started(run)
	return floorPublish(ctx, d.js, floorSubject(run, 0), run+".0", []byte(`{"request":"floor"}`))
}

func floorPublish(ctx context.Context, js jetstream.JetStream, subject, id string, data []byte) error {
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, id)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := js.PublishMsg(pctx, m)
	return err
}

// runFloor starts the floor pipeline on its own embedded server and runs
// the load against it.
func runFloor(ctx context.Context, gen loadGen) (loadResult, error) {
	dir, err := os.MkdirTemp("", "codali-floor-")
	if err != nil {
		return loadResult{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	srv, err := bus.StartEmbedded(bus.EmbeddedConfig{Port: -1, StoreDir: dir, ServerName: "floor"})
	if err != nil {
		return loadResult{}, err
	}
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		return loadResult{}, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return loadResult{}, err
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "FLOOR", Subjects: []string{"floor.>"},
		Retention: jetstream.InterestPolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		return loadResult{}, err
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "FLOORRAO", Subjects: []string{"floorrao.>"},
		Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		return loadResult{}, err
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	start := func(name, filter string, concurrency int, next func(subject string) (string, string)) error {
		cons, err := js.CreateOrUpdateConsumer(ctx, "FLOOR", jetstream.ConsumerConfig{Durable: name, FilterSubject: filter,
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second, MaxAckPending: 256})
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			floorConsume(wctx, js, cons, concurrency, next)
		}()
		return nil
	}
	for hop := range floorHops {
		err := start("hop"+strconv.Itoa(hop), "floor.*.s"+strconv.Itoa(hop), 4, func(subject string) (string, string) {
			run := strings.Split(subject, ".")[1]
			return floorSubject(run, hop+1), run + "." + strconv.Itoa(hop+1)
		})
		if err != nil {
			return loadResult{}, err
		}
	}
	if err := start("recorder", "floor.>", 8, func(subject string) (string, string) {
		run := strings.Split(subject, ".")[1]
		return "floorrao." + run, "rao." + subject
	}); err != nil {
		return loadResult{}, err
	}
	return gen.run(ctx, nc, floorDriver{js: js})
}

// floorConsume is one hop: fetch, publish the next event, then ack.
func floorConsume(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, concurrency int, next func(string) (string, string)) {
	slots := make(chan struct{}, concurrency)
	for ctx.Err() == nil {
		slots <- struct{}{}
		n := 1
		for n < concurrency {
			select {
			case slots <- struct{}{}:
				n++
				continue
			default:
			}
			break
		}
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		batch, err := cons.Fetch(n, jetstream.FetchContext(fctx))
		got := 0
		if err == nil {
			for msg := range batch.Messages() {
				got++
				go func() {
					defer func() { <-slots }()
					subject, id := next(msg.Subject())
					if err := floorPublish(ctx, js, subject, id, msg.Data()); err != nil {
						_ = msg.Nak()
						return
					}
					_ = msg.DoubleAck(ctx)
				}()
			}
		}
		cancel()
		for range n - got {
			<-slots
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "floor: fetch:", err)
		}
	}
}
