package afs

import (
	"runtime/debug"
	"strings"
	"time"
)

// SchemaVersion is the protocol version every canonical file declares.
const SchemaVersion = "0.3"

// ProducerName is the producer name Codali writes.
const ProducerName = "codali"

// Producer names the application that wrote a file.
type Producer struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	InstanceID string `json:"instance_id,omitempty"`
}

// Meta is the v0.3 metadata every canonical JSON file carries.
type Meta struct {
	SchemaVersion string   `json:"schema_version"`
	Producer      Producer `json:"producer"`
	LastUpdated   string   `json:"last_updated"`
}

// NewMeta returns v0.3 metadata for producer p at time t.
func NewMeta(p Producer, t time.Time) Meta {
	return Meta{SchemaVersion: SchemaVersion, Producer: p, LastUpdated: Timestamp(t)}
}

// Timestamp formats t as the protocol's ISO 8601 timestamp (UTC,
// millisecond precision).
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// ParseTime parses a protocol timestamp (any RFC 3339 form).
func ParseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// checkMeta reports what is wrong with a file's metadata.
func checkMeta(m Meta) []string {
	var probs []string
	if m.SchemaVersion != SchemaVersion {
		probs = append(probs, "schema_version is "+quote(m.SchemaVersion)+", want \"0.3\"")
	}
	if m.Producer.Name == "" {
		probs = append(probs, "producer.name is empty")
	}
	if m.Producer.Version == "" {
		probs = append(probs, "producer.version is empty")
	}
	if _, ok := ParseTime(m.LastUpdated); !ok {
		probs = append(probs, "last_updated "+quote(m.LastUpdated)+" is not ISO 8601")
	}
	return probs
}

func quote(s string) string { return "\"" + s + "\"" }

// DefaultProducer is Codali as producer: the main module's version when the
// binary was built from a tagged module, "0.0.0-dev" otherwise.
func DefaultProducer(instanceID string) Producer {
	v := "0.0.0-dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = strings.TrimPrefix(bi.Main.Version, "v")
	}
	return Producer{Name: ProducerName, Version: v, InstanceID: instanceID}
}
