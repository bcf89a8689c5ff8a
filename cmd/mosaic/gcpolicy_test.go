package main

import (
	"strings"
	"testing"
)

// mosaic starts its adaptive collector target, 400 while the live heap is
// small, when the environment sets neither GOGC nor GOMEMLIMIT, and
// otherwise leaves the runtime what the operator set; the start line says
// which applies, read back from the runtime of the running binary.
func TestGCPolicyDefaultAndEnvironment(t *testing.T) {
	for _, c := range []struct {
		name, gogc, memLimit, want string
	}{
		{"default", "", "", "gogc=400 gomemlimit=0 gc_policy=adaptive"},
		{"GOGC", "150", "", "gogc=150 gomemlimit=0 gc_policy=environment"},
		{"GOGC=off", "off", "", "gogc=-1 gomemlimit=0 gc_policy=environment"},
		// A limit alone is the operator's policy too: GOGC stays Go's 100.
		{"GOMEMLIMIT", "", "1GiB", "gogc=100 gomemlimit=1073741824 gc_policy=environment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The binary inherits the test's environment; an empty
			// value is, for the runtime and for mosaic, no setting.
			t.Setenv("GOGC", c.gogc)
			t.Setenv("GOMEMLIMIT", c.memLimit)
			p := startMosaic(t, t.TempDir(), "http { server { listen 127.0.0.1:{port}; location / { return 204; } } }", freePort(t))
			waitOutput(t, p, "mosaic started")
			line := p.out.String()
			line = line[strings.Index(line, "mosaic started"):]
			line, _, _ = strings.Cut(line, "\n")
			if !strings.HasSuffix(line, " "+c.want) {
				t.Fatalf("start line %q, want it to end with %q", line, c.want)
			}
		})
	}
}
