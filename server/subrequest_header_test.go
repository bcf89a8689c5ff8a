package server

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// A module used only by TestSubrequestHeaderNoContentReadToEnd:
// "hdrtest_check URI" issues a header-only subrequest and reports its
// status; "hdrtest_nobody CODE" answers CODE without a body (a 200 with
// Content-Length 0), then goes on for a while as a handler finishing its
// exchange does, noting whether it was stopped.
type hdrtestConf struct {
	uri    string
	nobody int
}

var hdrtestStopped atomic.Int32

var hdrtestModule = &Module{
	Name:   "hdrtest",
	NewLoc: func() any { return &hdrtestConf{} },
	Directives: []Directive{{Name: "hdrtest_check", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		c.Loc().(*hdrtestConf).uri = c.Args[0]
		return nil
	}}, {Name: "hdrtest_nobody", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		_, err := fmt.Sscan(c.Args[0], &c.Loc().(*hdrtestConf).nobody)
		return err
	}}},
}

func init() {
	hdrtestModule.Content = func(l *Location) (http.Handler, error) {
		hc := LocConf[*hdrtestConf](l, hdrtestModule)
		switch {
		case hc.nobody != 0:
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hc.nobody == http.StatusOK {
					w.Header().Set("Content-Length", "0")
				}
				w.WriteHeader(hc.nobody)
				select {
				case <-r.Context().Done():
					hdrtestStopped.Add(1)
				case <-time.After(100 * time.Millisecond):
				}
			}), nil
		case hc.uri != "":
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				resp, err := SubrequestHeader(r, hc.uri, nil)
				if err != nil {
					w.WriteHeader(599)
					return
				}
				fmt.Fprintf(w, "%d", resp.StatusCode)
			}), nil
		}
		return nil, nil
	}
	contentOrder = append(contentOrder, hdrtestModule.Name)
	Register(hdrtestModule)
}

// TestSubrequestHeaderNoContentReadToEnd: a header-only subrequest whose
// answer has no body, by its Content-Length of 0 or its status (204,
// 304), is read to its end rather than stopped, so that a proxied
// endpoint's kept connection stays open, as NGINX keeps an upstream's
// connection after a header-only subrequest for these answers. (Through
// the proxy, the stop only loses a race with the end of the exchange
// now and then, which TestAuthRequestKeepsEmptyAnswersConnection does
// not see on one core.)
func TestSubrequestHeaderNoContentReadToEnd(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location = /check204 { hdrtest_check /a204; }
		location = /check304 { hdrtest_check /a304; }
		location = /check200 { hdrtest_check /a200; }
		location = /a204 { hdrtest_nobody 204; }
		location = /a304 { hdrtest_nobody 304; }
		location = /a200 { hdrtest_nobody 200; }
	} }`)
	for _, c := range []string{"204", "304", "200"} {
		if resp, body := get(t, base+"/check"+c); resp.StatusCode != 200 || body != c {
			t.Fatalf("/check%s: %d %q", c, resp.StatusCode, body)
		}
	}
	if n := hdrtestStopped.Load(); n != 0 {
		t.Errorf("%d answers without a body were stopped before their handler ended", n)
	}
}
