package main

import (
	"strings"
	"testing"
)

// A request through a link out of the root is KEPT when mosaic refuses
// it, but mosaic's giving no answer there stays unclassified.
func TestExplainNoAnswerUnclassified(t *testing.T) {
	r := req{prefix: "/p", method: "GET", target: "/p/loutd/x"}
	s := server{text: "location ~ ^/p/(.*)$ { alias /w/$1; }"}
	nginx := answer{status: 200, body: "1:ab"}
	if got := explain(r, s, nginx, answer{status: 403, body: "error page"}); !strings.HasPrefix(got, "KEPT link out of the root: ") {
		t.Errorf("refused: %q", got)
	}
	if got := explain(r, s, nginx, answer{err: "i/o timeout"}); strings.HasPrefix(got, "KEPT") {
		t.Errorf("no answer: %q, want no class", got)
	}
}
