package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestAgentProtocolFromREADME is an agent written only from the README's
// agent protocol: plain core NATS and hand-written JSON, none of Codali's
// packages. It submits a run and waits for its terminal event.
func TestAgentProtocolFromREADME(t *testing.T) {
	p := startUp(t, fastConfig(t))
	nc, err := nats.Connect(p.url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	runID := fmt.Sprintf("agent-%d", time.Now().UnixNano())
	// 1. Subscribe to the run's events before publishing.
	ch := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe("codali.run."+runID+".>", ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	// 2. Publish the request with Nats-Msg-Id = <run_id>.requested.1 and
	// Nats-Expected-Last-Subject-Sequence = 0 (one request per run id).
	request := map[string]any{
		"specversion": "1.0", "id": runID + ".requested.1", "source": "agent/protocol-test",
		"type": "dev.codali.run.requested", "subject": runID, "time": time.Now().UTC().Format(time.RFC3339Nano),
		"datacontenttype": "application/json", "attempt": 1,
		"data": map[string]any{"request": "write done.txt", "repo": map[string]string{"path": helloRepo(t)}},
	}
	body, _ := json.Marshal(request)
	msg := nats.NewMsg("codali.run." + runID + ".requested")
	msg.Data = body
	msg.Header.Set("Nats-Msg-Id", runID+".requested.1")
	msg.Header.Set("Nats-Expected-Last-Subject-Sequence", "0")
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	// 3. Follow until dev.codali.run.passed or dev.codali.run.failed.
	seen := map[string]bool{}
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case m := <-ch:
			var ev struct {
				ID   string `json:"id"`
				Type string `json:"type"`
				Data struct {
					Status    string `json:"status"`
					Integrity string `json:"integrity"`
					Attempts  int    `json:"attempts"`
				} `json:"data"`
			}
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				t.Fatalf("event on %s is not JSON: %v", m.Subject, err)
			}
			if seen[ev.ID] {
				continue // a redelivered duplicate
			}
			seen[ev.ID] = true
			switch ev.Type {
			case "dev.codali.run.passed":
				if ev.Data.Status != "passed" || ev.Data.Integrity != "green" || ev.Data.Attempts != 2 {
					t.Fatalf("terminal data %+v", ev.Data)
				}
				if !seen[runID+".retry.2"] || !seen[runID+".context.1"] {
					t.Fatalf("expected to see the run's phases go by, saw %v", seen)
				}
				return
			case "dev.codali.run.failed":
				t.Fatalf("run failed: %s", m.Data)
			}
		case <-timeout:
			t.Fatalf("no terminal event; saw %v\n%s", seen, p.log.String())
		}
	}
}
