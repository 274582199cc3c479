package natsauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/approval"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natsauth/natsauthtest"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/runclaim"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

var update = flag.Bool("update", false, "rewrite deploy/k8s/nats/permissions.sh from the identities")

// TestDeployPermissionsMatch: the permissions nsc-codali.sh gives each
// user are the ones defined here.
func TestDeployPermissionsMatch(t *testing.T) {
	path := filepath.Join("..", "..", "deploy", "k8s", "nats", "permissions.sh")
	want := natsauth.RenderNSC()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s differs from natsauth.Identities(); regenerate it with go test ./pkg/natsauth -run TestDeployPermissionsMatch -update", path)
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "nats", "nsc-codali.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "permissions.sh") || strings.Contains(string(script), "add_user librarian") {
		t.Fatal("nsc-codali.sh must take its users from permissions.sh, not define its own")
	}
}

// identity is a connection as one user, recording permission violations.
type identity struct {
	name string
	nc   *nats.Conn
	js   jetstream.JetStream
	mu   sync.Mutex
	errs []string
	// got is signalled on every asynchronous error.
	got chan struct{}
}

func (id *identity) violated(subject string) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	for _, e := range id.errs {
		if strings.Contains(strings.ToLower(e), "permissions violation") && strings.Contains(e, subject) {
			return true
		}
	}
	return false
}

type cluster struct {
	url       string
	passwords map[string]string
}

func start(t *testing.T) cluster {
	t.Helper()
	url, pw := natsauthtest.Start(t)
	return cluster{url: url, passwords: pw}
}

func (c cluster) as(t *testing.T, name string) *identity {
	t.Helper()
	id := &identity{name: name, got: make(chan struct{}, 1)}
	// Every request, JetStream API call, pull consumer, KV read and object
	// read below goes through this identity's own inboxes.
	nc, err := nats.Connect(c.url, nats.UserInfo(name, c.passwords[name]), nats.Timeout(10*time.Second),
		nats.CustomInboxPrefix(natsauth.InboxPrefix(name)), nats.PermissionErrOnSubscribe(true),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			id.mu.Lock()
			id.errs = append(id.errs, err.Error())
			id.mu.Unlock()
			select {
			case id.got <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		t.Fatalf("connect as %s: %v", name, err)
	}
	t.Cleanup(nc.Close)
	id.nc = nc
	if id.js, err = jetstream.New(nc); err != nil {
		t.Fatal(err)
	}
	return id
}

func ctx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// denied runs op, which must fail, and waits for the server's permission
// violation on subject.
func (id *identity) denied(t *testing.T, what, subject string, op func(context.Context) error) {
	t.Helper()
	t.Run(what, func(t *testing.T) {
		t.Parallel()
		id.check(t, what, subject, op)
	})
}

func (id *identity) check(t *testing.T, what, subject string, op func(context.Context) error) {
	t.Helper()
	// A denied request gets no reply: it fails at the deadline, whatever
	// its length, and the server's violation report is what proves the
	// denial, so the deadline can be short.
	if err := op(ctx(t, 500*time.Millisecond)); err == nil {
		t.Errorf("%s could %s", id.name, what)
		return
	}
	deadline := time.After(30 * time.Second)
	for !id.violated(subject) {
		select {
		case <-id.got:
		case <-deadline:
			t.Errorf("%s: %s failed, but the server reported no permission violation on %s (errors: %v)", id.name, what, subject, id.errs)
			return
		}
	}
}

// subscribe subscribes to subject and reports the server's refusal: nil
// when the subscription stands (nothing arrives before the deadline).
func subscribe(id *identity, subject string) func(context.Context) error {
	return func(c context.Context) error {
		sub, err := id.nc.SubscribeSync(subject)
		if err != nil {
			return err
		}
		defer sub.Unsubscribe() //nolint:errcheck // the test ends with the connection
		// The server answers the ping after refusing the subscription, so
		// a refusal is recorded on sub once the flush returns.
		if err := id.nc.FlushWithContext(c); err != nil {
			return err
		}
		if _, err := sub.NextMsgWithContext(c); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

func publish(id *identity, subject string, e events.Envelope) func(context.Context) error {
	return func(c context.Context) error {
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		m := nats.NewMsg(subject)
		m.Data = raw
		m.Header.Set(events.HeaderMsgID, e.ID)
		_, err = id.js.PublishMsg(c, m)
		return err
	}
}

func event(t *testing.T, kind events.Kind, data any) events.Envelope {
	t.Helper()
	e, err := events.New("run1", kind, 1, "test", time.Now(), data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEachIdentityCanDoItsJobAndNothingElse connects as every identity
// generated from Identities: the provisioner provisions; each service binds
// without provisioning rights, consumes its own consumer and publishes its
// own output, which the next phase consumes; nobody else may change a
// stream, publish another phase's output or read another's consumer.
func TestEachIdentityCanDoItsJobAndNothingElse(t *testing.T) {
	c := start(t)
	prov := c.as(t, natsauth.Provisioner)
	if err := bus.Provision(ctx(t, 30*time.Second), prov.js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatalf("provisioner could not provision: %v (errors %v)", err, prov.errs)
	}
	req := events.Requested{Request: "x", Repo: events.RepoRef{Path: "/srv/x"}}
	run := events.Run{Request: req}
	plan := events.Plan{Steps: []events.PlanStep{{Description: "s"}}, Verify: []events.VerifyCommand{{Name: "t", Command: []string{"true"}}}}
	outputs := map[string]events.Envelope{
		natsauth.CLI:            event(t, events.KindRequested, req),
		events.ServiceLibrarian: event(t, events.KindContext, events.ContextData{Run: run, BundleRef: &events.ArtifactRef{}}),
		events.ServiceArchitect: event(t, events.KindPlan, events.PlanData{Run: run, Plan: plan}),
		events.ServiceBuilder:   event(t, events.KindBuilt, events.BuiltData{Run: run, Plan: plan}),
		events.ServiceCritic:    event(t, events.KindPassed, events.VerdictData{Run: run, Status: "passed", Integrity: "green"}),
	}
	cli := c.as(t, natsauth.CLI)
	if err := publish(cli, events.KindRequested.Subject("run1"), outputs[natsauth.CLI])(ctx(t, 10*time.Second)); err != nil {
		t.Fatalf("cli could not submit a request: %v", err)
	}
	cfg := config.Default()
	cfg.Workspace.Root = t.TempDir()
	for _, svc := range []string{events.ServiceLibrarian, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic, events.ServiceRecorder} {
		t.Run(svc, func(t *testing.T) {
			id := c.as(t, svc)
			// Bind every store as the service does at start-up.
			d, err := app.NewDeps(ctx(t, 30*time.Second), cfg, id.js, slog.New(slog.DiscardHandler), time.Now, func(string) string { return "" }, nil)
			if err != nil {
				t.Fatalf("%s could not bind its stores: %v (errors %v)", svc, err, id.errs)
			}
			// Consume its own consumer: the previous phase's output.
			cons, err := id.js.Consumer(ctx(t, 10*time.Second), events.StreamWork, svc)
			if err != nil {
				t.Fatalf("%s could not look up its consumer: %v", svc, err)
			}
			m, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second))
			if err != nil {
				t.Fatalf("%s could not read its consumer: %v (errors %v)", svc, err, id.errs)
			}
			if err := d.Claims.Admit(ctx(t, 10*time.Second), mustDecode(t, m)); err != nil {
				t.Fatalf("%s could not check the run claim of %s: %v (errors %v)", svc, m.Subject(), err, id.errs)
			}
			if err := m.DoubleAck(ctx(t, 10*time.Second)); err != nil {
				t.Fatalf("%s could not ack: %v", svc, err)
			}
			if svc == events.ServiceBuilder {
				// A decision is recorded only after the earlier decisions
				// on its call are read in the work stream.
				parks, err := approval.Open(ctx(t, 10*time.Second), id.js)
				if err != nil {
					t.Fatalf("builder could not bind the parks: %v (errors %v)", err, id.errs)
				}
				call := "a1-s1-c1"
				p, err := events.NewKeyed("run1", events.KindApprovalRequested, 1, call, "codali/builder", time.Now(),
					events.ApprovalRequestedData{Run: run, Park: call, Calls: []events.ApprovalCall{{ID: call, Tool: "write_file"}}})
				if err != nil {
					t.Fatal(err)
				}
				dec, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, call, "agent/ci", time.Now(),
					events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: "alice"})
				if err != nil {
					t.Fatal(err)
				}
				if err := parks.Park(ctx(t, 10*time.Second), p, 0); err != nil {
					t.Fatalf("builder could not store a park: %v (errors %v)", err, id.errs)
				}
				md, err := m.Metadata()
				if err != nil || md.Sequence.Stream < 2 {
					t.Fatalf("the builder's input: %+v, %v", md, err)
				}
				// Handled as if it were a later message: the stream before it is read.
				if r, err := parks.Decide(ctx(t, 10*time.Second), dec, md.Sequence.Stream+1); err != nil || !r.Settled {
					t.Fatalf("builder could not decide: %+v, %v (errors %v)", r, err, id.errs)
				}
			}
			if out, ok := outputs[svc]; ok {
				subject, _ := out.NATSSubject()
				if err := publish(id, subject, out)(ctx(t, 10*time.Second)); err != nil {
					t.Fatalf("%s could not publish its own output: %v", svc, err)
				}
			}
			// What it must not do.
			id.denied(t, "shrink the RAO stream", "$JS.API.STREAM.UPDATE.RAO", func(c context.Context) error {
				_, err := id.js.UpdateStream(c, jetstream.StreamConfig{Name: events.StreamRAO, Subjects: []string{events.SubjectRAOAll}, MaxMsgs: 1})
				return err
			})
			id.denied(t, "create streams", "$JS.API.STREAM.CREATE.EVIL", func(c context.Context) error {
				_, err := id.js.CreateStream(c, jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}})
				return err
			})
			id.denied(t, "delete the work stream", "$JS.API.STREAM.DELETE.CODALI", func(c context.Context) error {
				return id.js.DeleteStream(c, events.StreamWork)
			})
			id.denied(t, "reconfigure its consumer", "$JS.API.CONSUMER.CREATE.CODALI."+svc, func(c context.Context) error {
				_, err := id.js.CreateOrUpdateConsumer(c, events.StreamWork, jetstream.ConsumerConfig{Durable: svc, AckPolicy: jetstream.AckExplicitPolicy})
				return err
			})
			other := events.ServiceCritic
			forged := events.KindPassed
			if svc == events.ServiceCritic {
				other, forged = events.ServiceBuilder, events.KindBuilt
			}
			id.denied(t, "read another service's consumer", "$JS.API.CONSUMER.INFO.CODALI."+other, func(c context.Context) error {
				_, err := id.js.Consumer(c, events.StreamWork, other)
				return err
			})
			fake := event(t, forged, events.VerdictData{Run: run, Status: "passed", Integrity: "green"})
			id.denied(t, "publish another phase's "+string(forged), forged.Subject("run1"), publish(id, forged.Subject("run1"), fake))
			id.denied(t, "publish a request", events.KindRequested.Subject("run2"), publish(id, events.KindRequested.Subject("run2"), event(t, events.KindRequested, req)))
			if svc != events.ServiceLibrarian && svc != events.ServiceRecorder {
				id.denied(t, "claim a run id", "$KV.codali-requests.run9", func(c context.Context) error {
					kv, err := id.js.KeyValue(c, events.BucketRequests)
					if err != nil {
						return err
					}
					_, err = kv.Create(c, "run9", []byte(`{}`))
					return err
				})
			}
		})
	}
	t.Run("cli", func(t *testing.T) {
		// submit reads the claim of its run (whose request was consumed),
		// but cannot claim a run id.
		claims, err := runclaim.Open(ctx(t, 10*time.Second), cli.js)
		if err != nil {
			t.Fatalf("cli could not bind the claims: %v (errors %v)", err, cli.errs)
		}
		if _, ok, err := claims.Get(ctx(t, 10*time.Second), "run1"); err != nil || !ok {
			t.Fatalf("cli could not read the claim of run1: %v %v (errors %v)", ok, err, cli.errs)
		}
		cli.denied(t, "claim a run id", "$KV.codali-requests.run9", func(c context.Context) error {
			kv, err := cli.js.KeyValue(c, events.BucketRequests)
			if err != nil {
				return err
			}
			_, err = kv.Create(c, "run9", []byte(`{}`))
			return err
		})
		fake := event(t, events.KindPassed, events.VerdictData{Run: run, Status: "passed", Integrity: "green"})
		cli.denied(t, "publish a verdict", events.KindPassed.Subject("run1"), publish(cli, events.KindPassed.Subject("run1"), fake))
		cli.denied(t, "shrink the RAO stream", "$JS.API.STREAM.UPDATE.RAO", func(c context.Context) error {
			_, err := cli.js.UpdateStream(c, jetstream.StreamConfig{Name: events.StreamRAO, Subjects: []string{events.SubjectRAOAll}, MaxMsgs: 1})
			return err
		})
		cli.denied(t, "write history", "rao.run1", func(c context.Context) error {
			_, err := cli.js.Publish(c, "rao.run1", []byte(`{}`))
			return err
		})
		// The services' message id key: with it an agent could take a
		// service output's message id first (see pkg/msgid).
		keys := "KV_" + events.BucketKeys
		cli.denied(t, "bind the message id key's bucket", "$JS.API.STREAM.INFO."+keys, func(c context.Context) error {
			_, err := bus.MsgIDKey(c, cli.js)
			return err
		})
		for what, subj := range map[string]string{
			"read the message id key":                    "$JS.API.DIRECT.GET." + keys + ".$KV." + events.BucketKeys + "." + msgid.StoreKey,
			"read the message id key from the leader":    "$JS.API.STREAM.MSG.GET." + keys,
			"replace the message id key":                 "$KV." + events.BucketKeys + "." + msgid.StoreKey,
			"read the message id key through a consumer": "$JS.API.CONSUMER.CREATE." + keys,
		} {
			cli.denied(t, what, subj, func(c context.Context) error {
				_, err := cli.nc.RequestWithContext(c, subj, []byte(`{"last_by_subj":"$KV.codali-keys.msgid"}`))
				return err
			})
		}
		cli.denied(t, "read the librarian's consumer", "$JS.API.CONSUMER.MSG.NEXT.CODALI.librarian", func(c context.Context) error {
			cons, err := cli.js.Consumer(c, events.StreamWork, events.ServiceLibrarian)
			if err != nil {
				return err
			}
			_, err = cons.Next(jetstream.FetchMaxWait(time.Second))
			return err
		})
	})
	t.Run("approvals", func(t *testing.T) {
		b := c.as(t, events.ServiceBuilder)
		park, err := events.NewKeyed("run1", events.KindApprovalRequested, 1, "a1-s1-c1", "test", time.Now(), events.ApprovalRequestedData{
			Run: run, Park: "a1-s1-c1", Calls: []events.ApprovalCall{{ID: "a1-s1-c1", Tool: "write_file", Args: []byte(`{}`)}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := publish(b, events.KindApprovalRequested.Subject("run1"), park)(ctx(t, 10*time.Second)); err != nil {
			t.Fatalf("builder could not park a run: %v", err)
		}
		store, err := approval.Open(ctx(t, 10*time.Second), b.js)
		if err != nil {
			t.Fatalf("builder could not bind the park store: %v", err)
		}
		if err := store.Park(ctx(t, 10*time.Second), park, 0); err != nil {
			t.Fatalf("builder could not record the park: %v (errors %v)", err, b.errs)
		}
		sched := nats.NewMsg(events.TimerScheduleSubject("run1", "a1-s1-c1"))
		sched.Data = []byte(`{}`)
		if _, err := b.js.PublishMsg(ctx(t, 10*time.Second), sched, jetstream.WithScheduleAt(time.Now().Add(time.Hour)),
			jetstream.WithScheduleTarget(events.TimerFireSubject("run1"))); err != nil {
			t.Fatalf("builder could not schedule a deadline: %v (errors %v)", err, b.errs)
		}
		fire := events.TimerFireSubject("run1")
		b.denied(t, "fire a deadline itself", fire, func(c context.Context) error {
			_, err := b.js.Publish(c, fire, []byte(`{}`))
			return err
		})
		cli.denied(t, "schedule a deadline", events.TimerScheduleSubject("run1", "x"), func(c context.Context) error {
			_, err := cli.js.Publish(c, events.TimerScheduleSubject("run1", "x"), []byte(`{}`))
			return err
		})
		dl := events.KindApprovalDeadline.Subject("run1")
		cli.denied(t, "publish a deadline", dl, func(c context.Context) error {
			_, err := cli.js.Publish(c, dl, []byte(`{}`))
			return err
		})
		decision, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, "a1-s1-c1", "test", time.Now(),
			events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		subj := events.KindApprovalDecided.Subject("run1")
		b.denied(t, "approve its own call", subj, publish(b, subj, decision))
		cli.denied(t, "park a run", events.KindApprovalRequested.Subject("run1"), publish(cli, events.KindApprovalRequested.Subject("run1"), park))
		if err := publish(cli, subj, decision)(ctx(t, 10*time.Second)); err != nil {
			t.Fatalf("cli could not decide a call: %v", err)
		}
	})
	t.Run("policies", func(t *testing.T) {
		// Only the operator stores a run's policy; the phases that judge
		// runs read it; agents (the CLI identity) and services cannot
		// store one, so no request can bring its own policy.
		doc := []byte(`{"commands":{"allow":[["true"]]}}`)
		admin := c.as(t, natsauth.Admin)
		digest, err := policystore.Put(ctx(t, 10*time.Second), admin.js, "run1", doc)
		if err != nil {
			t.Fatalf("admin could not store a policy: %v", err)
		}
		for _, svc := range []string{events.ServiceLibrarian, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic} {
			id := c.as(t, svc)
			if _, err := policystore.Load(ctx(t, 10*time.Second), id.js, "run1", events.PolicyRef{Digest: digest}); err != nil {
				t.Errorf("%s could not load the run's policy: %v (errors %v)", svc, err, id.errs)
			}
		}
		// The keys name the runs a policy is stored for before their
		// request is published (rao fork stores, then publishes): an agent
		// that could list them (stream info with a subject filter) could
		// publish a request of its own under that run id first.
		pols := "KV_" + events.BucketPolicies
		cli.denied(t, "list the runs policies are stored for", "$JS.API.STREAM.INFO."+pols, func(c context.Context) error {
			s, err := cli.js.Stream(c, pols)
			if err != nil {
				return err
			}
			info, err := s.Info(c, jetstream.WithSubjectFilter(">"))
			if err != nil {
				return err
			}
			t.Logf("the CLI identity read the policy keys: %v", info.State.Subjects)
			return nil
		})
		for _, name := range []string{natsauth.CLI, events.ServiceBuilder, events.ServiceCritic} {
			id := c.as(t, name)
			loose := []byte(`{"commands":{"allow":[["sh"]]}}`)
			looseP, err := policy.Parse(loose, policy.FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			// Stored in canonical form, under its digest: the policy hash.
			subj := "$KV.codali-policies.run1." + looseP.Hash()
			bind := subj
			if name == natsauth.CLI {
				// An agent cannot even bind the bucket, nor write a key.
				bind = "$JS.API.STREAM.INFO." + pols
				id.denied(t, "store a policy's key", subj, func(c context.Context) error {
					_, err := id.js.Publish(c, subj, loose)
					return err
				})
			}
			id.denied(t, "store a policy", bind, func(c context.Context) error {
				_, err := policystore.Put(c, id.js, "run1", loose)
				return err
			})
		}
	})
	t.Run("inboxes", func(t *testing.T) {
		// Replies (JetStream API replies carry stored policies, project
		// state, parks, run claims, artifacts) go to the requester's
		// inbox: each identity reads its own inboxes, never another's nor
		// the shared _INBOX.>. Every identity did its job above through its
		// own prefix.
		for _, me := range natsauth.Identities() {
			if me.Name == natsauth.Admin {
				continue // the operator may subscribe to anything
			}
			id := c.as(t, me.Name)
			own := natsauth.InboxPrefix(me.Name) + ".>"
			if err := subscribe(id, own)(ctx(t, 200*time.Millisecond)); err != nil {
				t.Errorf("%s cannot subscribe to its own inboxes %s: %v", me.Name, own, err)
			}
			id.denied(t, "read every reply", "_INBOX.>", subscribe(id, "_INBOX.>"))
			id.denied(t, "read every reply under a wildcard", `"*.>"`, subscribe(id, "*.>"))
			for _, other := range natsauth.Identities() {
				if other.Name != me.Name {
					theirs := natsauth.InboxPrefix(other.Name) + ".>"
					id.denied(t, "read "+other.Name+"'s replies", theirs, subscribe(id, theirs))
				}
			}
		}
	})
	t.Run("provisioner", func(t *testing.T) {
		prov.denied(t, "publish a request", events.KindRequested.Subject("run3"), publish(prov, events.KindRequested.Subject("run3"), event(t, events.KindRequested, req)))
		prov.denied(t, "delete a stream", "$JS.API.STREAM.DELETE.RAO", func(c context.Context) error {
			return prov.js.DeleteStream(c, events.StreamRAO)
		})
	})
}

func mustDecode(t *testing.T, m jetstream.Msg) events.Envelope {
	t.Helper()
	e, err := events.Decoder{}.Decode(m.Subject(), m.Data())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestInboxPrefixFor: a client's inbox prefix is that of the identity it
// names, the fallback's when it names none.
func TestInboxPrefixFor(t *testing.T) {
	for _, tc := range []struct{ user, fallback, want string }{
		{natsauth.Admin, natsauth.CLI, "_INBOX_admin"},
		{events.ServiceCritic, natsauth.CLI, "_INBOX_critic"},
		{"", natsauth.CLI, "_INBOX_cli"},
		{"someone", natsauth.CLI, "_INBOX_cli"},
		{"", natsauth.Provisioner, "_INBOX_provisioner"},
	} {
		if got := natsauth.InboxPrefixFor(tc.user, tc.fallback); got != tc.want {
			t.Errorf("InboxPrefixFor(%q, %q) = %q, want %q", tc.user, tc.fallback, got, tc.want)
		}
	}
}
