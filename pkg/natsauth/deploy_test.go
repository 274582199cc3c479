package natsauth_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"gopkg.in/yaml.v3"
)

func deployFile(t *testing.T, parts ...string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "deploy", "k8s"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// manifest is the part of a workload manifest these checks read.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
				Volumes []struct {
					Name   string `yaml:"name"`
					Secret struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func manifests(t *testing.T, raw []byte) []manifest {
	t.Helper()
	var out []manifest
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

func credsSecret(m manifest) string {
	for _, v := range m.Spec.Template.Spec.Volumes {
		if v.Name == "nats-creds" {
			return v.Secret.SecretName
		}
	}
	return ""
}

// TestDeployUsesTheIdentities: each service Deployment mounts the creds
// of its own identity, the prod services provision nothing, and the
// provisioning Job is the one workload with the provisioner's creds.
func TestDeployUsesTheIdentities(t *testing.T) {
	for _, svc := range events.Services() {
		if _, err := natsauth.Lookup(svc); err != nil {
			t.Fatal(err)
		}
		ms := manifests(t, deployFile(t, "base", svc+".yaml"))
		if len(ms) == 0 || ms[0].Kind != "Deployment" {
			t.Fatalf("%s.yaml: no Deployment first", svc)
		}
		if got := credsSecret(ms[0]); got != "codali-nats-"+svc {
			t.Errorf("%s mounts the creds of %q", svc, got)
		}
	}
	prod := string(deployFile(t, "overlays", "prod", "kustomization.yaml"))
	if !strings.Contains(prod, `"--provision=none"`) || !strings.Contains(prod, "provision-job.yaml") || !strings.Contains(prod, "networkpolicies.yaml") {
		t.Error("the prod overlay must run the services with --provision=none, the provisioning Job and the network policies")
	}
	job := manifests(t, deployFile(t, "overlays", "prod", "provision-job.yaml"))
	if len(job) != 1 || job[0].Kind != "Job" || credsSecret(job[0]) != "codali-nats-"+natsauth.Provisioner ||
		!slices.Equal(job[0].Spec.Template.Spec.Containers[0].Command, []string{"/usr/local/bin/codali", "provision"}) {
		t.Errorf("provisioning Job: %+v", job)
	}
}

// TestDeployConfigSetsRoots: the shipped configuration restricts local
// repositories to a directory that holds no credentials or configuration.
func TestDeployConfigSetsRoots(t *testing.T) {
	cfg, err := config.Load(filepath.Join("..", "..", "deploy", "k8s", "base", "codali.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Workspace.AllowedRoots) == 0 {
		t.Fatal("workspace.allowedRoots is not set")
	}
	for _, r := range cfg.Workspace.AllowedRoots {
		for _, secret := range []string{"/etc/codali", "/etc", "/var/lib/codali/cache", "/tmp"} {
			if rel, err := filepath.Rel(r, secret); err == nil && !strings.HasPrefix(rel, "..") {
				t.Errorf("allowed root %s contains %s", r, secret)
			}
		}
	}
}
