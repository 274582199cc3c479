package librarian_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
	"github.com/codali-dev/codali/services/librarian"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// The secret planted in a repository file; it must never reach a snippet.
const awsKey = "AKIAIOSFODNN7EXAMPLE"

func testCtx(t *testing.T) context.Context { return apptest.Ctx(t) }

func newDeps(t *testing.T, cfgJSON string) *app.Deps {
	t.Helper()
	return apptest.Deps(t, cfgJSON, apptest.Options{})
}

func copyHello(t *testing.T) string { return apptest.CopyHello(t) }

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitRepo turns dir into a git repository with one commit on branch main
// and returns its file:// URL.
func gitRepo(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	for _, args := range [][]string{
		{"init", "--quiet", "-b", "main"},
		{"add", "--all"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "--quiet", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return "file://" + dir
}

func requested(t *testing.T, run string, req events.Requested) events.Envelope {
	t.Helper()
	e, err := events.New(run, events.KindRequested, 1, "agent/test", t0, req)
	if err != nil {
		t.Fatal(err)
	}
	e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	return e
}

const helloRequest = `Make Greet return "Hello, <name>!", and "Hello, world!" when the name is empty.`

// helloProject configures the project "hello" for every repository under
// the temporary directory (where copyHello puts them).
var helloProject = `"projects": {"hello": ["` + os.TempDir() + `"]}`

func TestHandleProducesContext(t *testing.T) {
	cases := []struct {
		name string
		cfg  string
		// setup prepares the repository and project state and returns the request.
		setup func(t *testing.T, d *app.Deps) events.Requested
		check func(t *testing.T, d *app.Deps, req events.Requested, out events.ContextData, bundle *events.ContextBundle)
	}{
		{
			name: "small bundle is inlined and stored; defaults apply",
			cfg:  `{}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}}
			},
			check: func(t *testing.T, _ *app.Deps, req events.Requested, out events.ContextData, b *events.ContextBundle) {
				if out.Bundle == nil {
					t.Fatal("small bundle not inlined")
				}
				if out.Run.MaxRetries != 3 {
					t.Errorf("max_retries = %d, want the configured default 3", out.Run.MaxRetries)
				}
				if want := config.DerivedProject(req.Repo); out.Run.Project != want || !strings.HasPrefix(want, "repo-") {
					t.Errorf("project = %q, want %q (repo-…)", out.Run.Project, want)
				}
				if b.Index.NumFiles != 4 || len(b.Files) != 4 {
					t.Errorf("indexed %d files (%d listed), want 4", b.Index.NumFiles, len(b.Files))
				}
				// The index's build time, not the (fixed) event clock.
				if age := time.Since(time.UnixMilli(b.Index.LastUpdateMS)); age < 0 || age > time.Minute {
					t.Errorf("last update %d is not the index's build time", b.Index.LastUpdateMS)
				}
				if !slices.Contains(b.Queries, "Greet") {
					t.Errorf("queries %v lack the identifier Greet", b.Queries)
				}
				if b.Request != helloRequest || len(b.Symbols) == 0 || b.Symbols[0].Path != "greet.go" || len(b.AST) == 0 || len(b.Impact) == 0 {
					t.Errorf("bundle lacks the request or greet.go's structure: %+v", b)
				}
				if len(b.Snippets) == 0 || b.Snippets[0].Path != "greet.go" && b.Snippets[0].Path != "greet_test.go" {
					t.Fatalf("snippets %+v: want greet.go or greet_test.go first", b.Snippets)
				}
				found := false
				for _, s := range b.Snippets {
					if s.Path == "greet.go" && strings.Contains(s.Content, "func Greet") && s.LineStart >= 1 && s.LineEnd >= s.LineStart {
						found = true
					}
				}
				if !found {
					t.Errorf("no snippet of greet.go with func Greet in %+v", b.Snippets)
				}
				if !strings.Contains(out.Summary, "builtin index: 4 files") {
					t.Errorf("summary %q", out.Summary)
				}
			},
		},
		{
			name: "request options set project and max_retries",
			cfg:  `{"limits": {"maxRetries": 1}, ` + helloProject + `}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)},
					Options: events.RunOptions{Project: "hello", MaxRetries: intp(5)}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, out events.ContextData, _ *events.ContextBundle) {
				if out.Run.Project != "hello" || out.Run.MaxRetries != 5 {
					t.Errorf("run = project %q max_retries %d, want hello and 5", out.Run.Project, out.Run.MaxRetries)
				}
			},
		},
		{
			name: "configured max_retries applies without an option",
			cfg:  `{"limits": {"maxRetries": 1}}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, out events.ContextData, _ *events.ContextBundle) {
				if out.Run.MaxRetries != 1 {
					t.Errorf("max_retries = %d, want 1", out.Run.MaxRetries)
				}
			},
		},
		{
			name: "bundle above the threshold is only referenced",
			cfg:  `{"events": {"artifactThresholdBytes": 64}}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, out events.ContextData, b *events.ContextBundle) {
				if out.Bundle != nil {
					t.Error("bundle above the threshold was inlined")
				}
				if out.BundleRef.Size <= 64 {
					t.Errorf("stored bundle is %d bytes, not above the 64-byte threshold", out.BundleRef.Size)
				}
				if len(b.Snippets) == 0 {
					t.Error("stored bundle has no snippets")
				}
			},
		},
		{
			name: "secrets in files are redacted in snippets",
			cfg:  `{"redact": {"patterns": ["internal-[0-9a-f]{8}"]}}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				dir := copyHello(t)
				writeFile(t, dir, "greeter/config.go", "package greeter\n\n// greeting credentials\nconst greetKey = \""+awsKey+"\"\nconst greetTag = \"internal-0123abcd\"\nvar greetURL = \"https://greet:hunter2secret@example.com/x\"\n")
				return events.Requested{Request: "Rotate the greet key in the greeter config", Repo: events.RepoRef{Path: dir}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, out events.ContextData, b *events.ContextBundle) {
				var snip *events.Snippet
				for i := range b.Snippets {
					if b.Snippets[i].Path == "greeter/config.go" {
						snip = &b.Snippets[i]
					}
				}
				if snip == nil {
					t.Fatalf("no snippet of greeter/config.go in %+v", b.Snippets)
				}
				raw, _ := json.Marshal(out)
				for _, secret := range []string{awsKey, "internal-0123abcd", "hunter2secret"} {
					if strings.Contains(snip.Content, secret) || strings.Contains(string(raw), secret) {
						t.Errorf("secret %q leaked into the context: %s", secret, snip.Content)
					}
				}
				if !strings.Contains(snip.Content, "[REDACTED:aws-key]") || !strings.Contains(snip.Content, "[REDACTED:custom]") {
					t.Errorf("snippet lacks redaction markers: %s", snip.Content)
				}
			},
		},
		{
			name: "L1 memory and goals of the project are included",
			cfg:  `{` + helloProject + `}`,
			setup: func(t *testing.T, d *app.Deps) events.Requested {
				_, err := d.PM.Update(testCtx(t), "hello", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
					return []cognition.GoalTreePatchOp{
							cognition.SproutOp(cognition.UserRootID, "g1", "ship the greeter", 5),
							cognition.SproutOp("g1", "g1a", "nested goal", 1),
							cognition.SproutOp(cognition.UserRootID, "g2", "keep tests green", 3),
						}, []cognition.L1MemoryPatchOp{
							cognition.AppendOp("empty names need a default"),
							cognition.AppendOp("run go vet too"),
						}, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}, Options: events.RunOptions{Project: "hello"}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, out events.ContextData, b *events.ContextBundle) {
				if want := []events.MemoryItem{{Text: "empty names need a default", Source: "project"}, {Text: "run go vet too", Source: "project"}}; !slices.Equal(b.Memory, want) {
					t.Errorf("memory = %q, want %q", b.Memory, want)
				}
				if want := []string{"ship the greeter", "keep tests green"}; !slices.Equal(b.Goals, want) {
					t.Errorf("goals = %q, want the top-level user goals %q", b.Goals, want)
				}
				if !strings.Contains(out.Summary, "2 memory") {
					t.Errorf("summary %q does not count the memory", out.Summary)
				}
			},
		},
		{
			name: "another project's state is not included",
			cfg:  `{` + helloProject + `}`,
			setup: func(t *testing.T, d *app.Deps) events.Requested {
				_, err := d.PM.Update(testCtx(t), "other", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
					return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("foreign lesson")}, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}, Options: events.RunOptions{Project: "hello"}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, _ events.ContextData, b *events.ContextBundle) {
				if len(b.Memory) != 0 || len(b.Goals) != 0 {
					t.Errorf("memory %q goals %q leaked from another project", b.Memory, b.Goals)
				}
			},
		},
		{
			name: "file limits: truncation, oversize and binary files are reported",
			cfg:  `{"librarian": {"maxFiles": 2, "maxFileBytes": 200}}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				dir := t.TempDir()
				// Walked in this order: binary (skipped), read, oversize (listed
				// unread), then the limit is hit.
				writeFile(t, dir, "a0_blob.bin", "greet\x00\x01\x02")
				writeFile(t, dir, "a_greet.go", "package greet // greet\n")
				writeFile(t, dir, "b_big.go", "package greet\n// greet "+strings.Repeat("x", 300)+"\n")
				writeFile(t, dir, "d_more.go", "package greet\n")
				writeFile(t, dir, ".git/config", "greet")
				return events.Requested{Request: "greet", Repo: events.RepoRef{Path: dir}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, _ events.ContextData, b *events.ContextBundle) {
				var paths []string
				for _, f := range b.Files {
					paths = append(paths, f.Path)
				}
				if !b.Index.Truncated || b.Index.NumFiles != 2 || !slices.Equal(paths, []string{"a_greet.go", "b_big.go"}) {
					t.Errorf("index %+v files %v: want truncated after a_greet.go and b_big.go", b.Index, paths)
				}
				for _, w := range []string{"file list truncated at 2 files", "2 binary or oversize files not read"} {
					found := false
					for _, got := range b.Warnings {
						found = found || strings.Contains(got, w)
					}
					if !found {
						t.Errorf("warnings %q lack %q", b.Warnings, w)
					}
				}
				for _, sn := range b.Snippets {
					if sn.Path != "a_greet.go" {
						t.Errorf("snippet of an unreadable file: %+v", sn)
					}
				}
			},
		},
		{
			name: "no matching file gives a warning",
			cfg:  `{}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				return events.Requested{Request: "zzqx vvkw", Repo: events.RepoRef{Path: copyHello(t)}}
			},
			check: func(t *testing.T, _ *app.Deps, _ events.Requested, _ events.ContextData, b *events.ContextBundle) {
				if len(b.Snippets) != 0 || !slices.Contains(b.Warnings, "no file matched the request's terms") {
					t.Errorf("snippets %d warnings %q", len(b.Snippets), b.Warnings)
				}
			},
		},
		{
			name: "repository given by a file:// URL",
			cfg:  `{}`,
			setup: func(t *testing.T, _ *app.Deps) events.Requested {
				url := gitRepo(t, copyHello(t))
				return events.Requested{Request: helloRequest, Repo: events.RepoRef{URL: url, Ref: "main"}}
			},
			check: func(t *testing.T, d *app.Deps, req events.Requested, out events.ContextData, b *events.ContextBundle) {
				if b.Index.NumFiles != 4 {
					t.Errorf("indexed %d files from the clone, want 4 (no .git)", b.Index.NumFiles)
				}
				for _, f := range b.Files {
					if strings.HasPrefix(f.Path, ".git") {
						t.Errorf("git metadata indexed: %s", f.Path)
					}
				}
				if out.Run.Request.Repo.URL != req.Repo.URL || out.Run.Project != config.DerivedProject(req.Repo) {
					t.Errorf("run %+v", out.Run)
				}
				if out.Run.Request.Repo.Ref != "main" {
					t.Errorf("the request was changed: ref %q", out.Run.Request.Repo.Ref)
				}
				if ref := out.Run.Repo().Ref; len(ref) != 40 || ref != out.Run.Commit {
					t.Errorf("ref %q: the branch must be pinned to the indexed commit", ref)
				}
				d.Workspaces.Wait() // removals in the background
				entries, err := os.ReadDir(d.Config.Workspace.Root)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if e.Name() == ".bases" || e.Name() == ".spares" {
						continue // the cached repository states and their ready copies, not workspaces
					}
					left, _ := filepath.Glob(filepath.Join(d.Config.Workspace.Root, e.Name(), "*", "*"))
					if len(left) > 0 {
						t.Errorf("workspace left behind: %v", left)
					}
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, tc.cfg)
			h, err := librarian.New(testCtx(t), d)
			if err != nil {
				t.Fatal(err)
			}
			req := tc.setup(t, d)
			in := requested(t, "run-lib-1", req)
			outs, err := h(testCtx(t), in)
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			if len(outs) != 1 {
				t.Fatalf("%d events, want 1", len(outs))
			}
			out := outs[0]
			if k, _ := out.Kind(); k != events.KindContext || out.ID != "run-lib-1.context.1" || out.Attempt != 1 ||
				out.Source != "codali/librarian" || out.Subject != "run-lib-1" || !out.Time.Equal(t0) || out.TraceParent != in.TraceParent {
				t.Fatalf("envelope %+v", out)
			}
			if _, err := out.Encode(d.Config.Events.MaxEventBytes); err != nil {
				t.Fatalf("event does not encode: %v", err)
			}
			var data events.ContextData
			if err := events.DecodeData(out, &data); err != nil {
				t.Fatalf("context data: %v", err)
			}
			if data.Run.Request.Request != req.Request {
				t.Errorf("request %q not carried", data.Run.Request.Request)
			}
			ref := data.BundleRef
			if ref.Bucket != events.BucketArtifacts || ref.Name != "run-lib-1/1/context_bundle.json/"+ref.SHA256 || len(ref.SHA256) != 64 {
				t.Fatalf("bundle ref %+v", ref)
			}
			raw, err := d.Artifacts.Get(testCtx(t), *ref)
			if err != nil {
				t.Fatalf("stored bundle: %v", err)
			}
			var stored events.ContextBundle
			if err := json.Unmarshal(raw, &stored); err != nil {
				t.Fatal(err)
			}
			if data.Bundle != nil {
				inline, _ := json.Marshal(data.Bundle)
				if string(inline) != string(raw) {
					t.Errorf("inline bundle differs from the stored one:\n%s\n%s", inline, raw)
				}
			}
			st, diags, err := codex.Decode(data.Run.Codex)
			if err != nil || codex.HasErrors(diags) {
				t.Fatalf("codex %q: %v %v", data.Run.Codex, err, diags)
			}
			if st.ProjectContext.Phase.String() != "librarian" {
				t.Errorf("codex phase %q", st.ProjectContext.Phase)
			}
			tc.check(t, d, req, data, &stored)
		})
	}
}

func TestHandleRejectsPermanently(t *testing.T) {
	d := newDeps(t, `{}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "does-not-exist")
	notDir := filepath.Join(t.TempDir(), "file")
	writeFile(t, filepath.Dir(notDir), "file", "x")
	cases := []struct {
		name string
		in   func(t *testing.T) events.Envelope
		want string
	}{
		{"empty request", func(t *testing.T) events.Envelope {
			return requested(t, "r1", events.Requested{Request: "  ", Repo: events.RepoRef{Path: copyHello(t)}})
		}, "request"},
		{"relative path", func(t *testing.T) events.Envelope {
			return requested(t, "r2", events.Requested{Request: "x", Repo: events.RepoRef{Path: "repo"}})
		}, "absolute"},
		{"path and url", func(t *testing.T) events.Envelope {
			return requested(t, "r3", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a", URL: "file:///a"}})
		}, "not both"},
		{"too many retries", func(t *testing.T) events.Envelope {
			return requested(t, "r4", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a"}, Options: events.RunOptions{MaxRetries: intp(21)}})
		}, "max_retries"},
		{"data is not an object", func(t *testing.T) events.Envelope {
			e := requested(t, "r5", events.Requested{Request: "x", Repo: events.RepoRef{Path: "/a"}})
			e.Data = json.RawMessage(`"just a string"`)
			return e
		}, "invalid payload"},
		{"missing repository directory", func(t *testing.T) events.Envelope {
			return requested(t, "r6", events.Requested{Request: "x", Repo: events.RepoRef{Path: missing}})
		}, "could not read repository"},
		{"repository path is a file", func(t *testing.T) events.Envelope {
			return requested(t, "r7", events.Requested{Request: "x", Repo: events.RepoRef{Path: notDir}})
		}, "not a directory"},
		{"unknown ref", func(t *testing.T) events.Envelope {
			url := gitRepo(t, copyHello(t))
			return requested(t, "r9", events.Requested{Request: "x", Repo: events.RepoRef{URL: url, Ref: "no-such-branch"}})
		}, "could not fetch repository"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			outs, err := h(testCtx(t), tc.in(t))
			if err == nil {
				t.Fatalf("no error; produced %+v", outs)
			}
			if !errors.Is(err, worker.ErrPermanent) {
				t.Errorf("error %v is not permanent", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if len(outs) != 0 {
				t.Errorf("produced events with an error: %+v", outs)
			}
		})
	}
}

// TestHandleIsRepeatable: a redelivered request yields the same context
// event (same id, same bundle reference), so the runtime's de-duplication
// and the next phase see one consistent event.
func TestHandleIsRepeatable(t *testing.T) {
	d := newDeps(t, `{}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	in := requested(t, "again", events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: copyHello(t)}})
	var got []string
	for range 2 {
		outs, err := h(testCtx(t), in)
		if err != nil || len(outs) != 1 {
			t.Fatalf("Handle: %v %d", err, len(outs))
		}
		raw, _ := json.Marshal(outs[0])
		got = append(got, string(raw))
	}
	if got[0] != got[1] {
		t.Errorf("redelivery produced a different event:\n%s\n%s", got[0], got[1])
	}
}

// TestProjectIsNotTrustedFromTheRequest: a request naming another
// project's id is refused (it would read and write that project's goals
// and memory); a project configured for the repository is accepted.
func TestProjectIsNotTrustedFromTheRequest(t *testing.T) {
	repo := copyHello(t)
	d := newDeps(t, `{"projects":{"hello":["`+repo+`"]}}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := h(testCtx(t), requested(t, "p1", events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: repo},
		Options: events.RunOptions{Project: "hello"}}))
	if err != nil || len(outs) != 1 {
		t.Fatalf("configured project: %v", err)
	}
	var out events.ContextData
	if err := events.DecodeData(outs[0], &out); err != nil || out.Run.Project != "hello" {
		t.Fatalf("project %q (%v)", out.Run.Project, err)
	}
	other := copyHello(t)
	for name, req := range map[string]events.Requested{
		"another repository":      {Request: helloRequest, Repo: events.RepoRef{Path: other}, Options: events.RunOptions{Project: "hello"}},
		"an unconfigured project": {Request: helloRequest, Repo: events.RepoRef{Path: repo}, Options: events.RunOptions{Project: "victim"}},
	} {
		t.Run(name, func(t *testing.T) {
			outs, err := h(testCtx(t), requested(t, "p2", req))
			if !errors.Is(err, config.ErrProjectNotAllowed) || !errors.Is(err, worker.ErrPermanent) || len(outs) != 0 {
				t.Fatalf("err = %v, %d events: want a permanent ErrProjectNotAllowed", err, len(outs))
			}
		})
	}
}

// TestRepositoriesOutsideTheRootsAreRefused: with workspace.allowedRoots
// set, a request for the credentials directory, by path or as a file://
// URL, is refused before anything is read, so the NKEY seed never reaches
// the context bundle.
func TestRepositoriesOutsideTheRootsAreRefused(t *testing.T) {
	roots := t.TempDir()
	inside := filepath.Join(roots, "hello")
	if err := os.CopyFS(inside, os.DirFS(copyHello(t))); err != nil {
		t.Fatal(err)
	}
	creds := t.TempDir()
	const seed = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTCA"
	writeFile(t, creds, "codali.creds", "-----BEGIN USER NKEY SEED-----\n"+seed+"\n------END USER NKEY SEED------\n")
	gitRepo(t, creds)
	d := newDeps(t, `{"workspace":{"allowedRoots":["`+roots+`"],"allowedHosts":["git.example.com"]}}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	for name, repo := range map[string]events.RepoRef{
		"credentials path":       {Path: creds},
		"credentials file url":   {URL: "file://" + creds},
		"credentials plain path": {URL: creds},
		"remote helper":          {URL: "ext::sh -c touch% /tmp/pwned"},
		"host not allowed":       {URL: "https://evil.example.com/x.git"},
	} {
		t.Run(name, func(t *testing.T) {
			outs, err := h(testCtx(t), requested(t, "c1", events.Requested{Request: "show me the seed", Repo: repo}))
			if !errors.Is(err, workspace.ErrNotAllowed) || !errors.Is(err, worker.ErrPermanent) {
				t.Fatalf("err = %v, want a permanent ErrNotAllowed", err)
			}
			for _, o := range outs {
				if strings.Contains(string(o.Data), seed) {
					t.Fatal("the NKEY seed reached an event")
				}
			}
		})
	}
	if outs, err := h(testCtx(t), requested(t, "c2", events.Requested{Request: helloRequest, Repo: events.RepoRef{Path: inside}})); err != nil || len(outs) != 1 {
		t.Fatalf("a repository inside the roots: %v", err)
	}
}

func TestComponent(t *testing.T) {
	c := librarian.Component()
	if c.Name != events.ServiceLibrarian || c.NewHandler == nil {
		t.Fatalf("component %+v", c)
	}
}

// TestInlineBundleFitsTheEvent: a bundle small enough to be inlined (at or
// below events.artifactThresholdBytes) must still give a context event that
// fits events.maxEventBytes; the configuration accepts any threshold below
// maxEventBytes.
func TestInlineBundleFitsTheEvent(t *testing.T) {
	const maxEvent, threshold = 4096, 4000
	d := newDeps(t, `{"events": {"maxEventBytes": 4096, "artifactThresholdBytes": 4000}}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// One file whose snippet brings the bundle just under the threshold.
	line := "// greet the caller politely, with a long comment line that fills the snippet window quickly\n"
	var body strings.Builder
	for body.Len() < 2900 {
		body.WriteString(line)
	}
	writeFile(t, dir, "greet.go", "package greet\n"+body.String())
	outs, err := h(testCtx(t), requested(t, "fit", events.Requested{Request: "greet politely", Repo: events.RepoRef{Path: dir}}))
	if err != nil || len(outs) != 1 {
		t.Fatalf("Handle: %v", err)
	}
	var data events.ContextData
	if err := events.DecodeData(outs[0], &data); err != nil {
		t.Fatal(err)
	}
	if data.BundleRef.Size > threshold {
		t.Fatalf("setup: the bundle (%d bytes) should be below the threshold %d", data.BundleRef.Size, threshold)
	}
	// Referencing the bundle instead of inlining it is a fine answer too;
	// an event that cannot be published is not.
	if _, err := outs[0].Encode(maxEvent); err != nil {
		t.Fatalf("librarian inlined a %d-byte bundle (threshold %d) into a context event the runtime cannot publish: %v", data.BundleRef.Size, threshold, err)
	}
}

func intp(n int) *int { return &n }

func TestProtectedFilesAreNotIndexed(t *testing.T) {
	d := apptest.Deps(t, `{}`, apptest.Options{PolicyJSON: `{"never_touch":["secrets/**"],"commands":{"allow":[["go","test"]]}}`})
	repo := copyHello(t)
	writeFile(t, repo, "secrets/greet-token.txt", "Greet token: hunter2\n")
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	in := requested(t, "prot", events.Requested{Request: "Make Greet greet", Repo: events.RepoRef{Path: repo}})
	outs, err := h(testCtx(t), in)
	if err != nil || len(outs) != 1 {
		t.Fatalf("%v", err)
	}
	raw, _ := json.Marshal(outs[0])
	var data events.ContextData
	if err := events.DecodeData(outs[0], &data); err != nil {
		t.Fatal(err)
	}
	b, err := d.Artifacts.LoadBundle(testCtx(t), data.Bundle, data.BundleRef)
	if err != nil {
		t.Fatal(err)
	}
	braw, _ := json.Marshal(b)
	if strings.Contains(string(raw)+string(braw), "secrets/") || strings.Contains(string(braw), "hunter2") {
		t.Fatalf("a protected file reached the bundle: %s", braw)
	}
}

// TestCloneFailureIsRetried: a clone that fails may be a network outage,
// so the event is retried with backoff rather than ending the run at once.
func TestCloneFailureIsRetried(t *testing.T) {
	d := newDeps(t, `{}`)
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	in := requested(t, "r8", events.Requested{Request: "x", Repo: events.RepoRef{URL: "file://" + filepath.Join(t.TempDir(), "missing")}})
	_, err = h(testCtx(t), in)
	if err == nil || errors.Is(err, worker.ErrPermanent) || !errors.Is(err, workspace.ErrClone) {
		t.Fatalf("err = %v, want a transient clone error", err)
	}
}
