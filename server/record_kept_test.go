package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// A module used only by TestRecordKeptPastResponse: "keeptest_keep"
// answers with the request's path and hands the request to keptReqs, as
// a handler that goes on after its response (a background cache fill, a
// post_action, a mirror) keeps it.
var (
	keptReqs   = make(chan *http.Request, 64)
	keeptestOn = &Module{
		Name:   "keeptest",
		NewLoc: func() any { return new(bool) },
		Directives: []Directive{{Name: "keeptest_keep", Context: CtxLocation, Set: func(c *Cmd) error {
			*c.Loc().(*bool) = true
			return nil
		}}},
	}
)

func init() {
	keeptestOn.Content = func(l *Location) (http.Handler, error) {
		if !*LocConf[*bool](l, keeptestOn) {
			return nil, nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.URL.Path)
			keptReqs <- r
		}), nil
	}
	contentOrder = append(contentOrder, keeptestOn.Name)
	Register(keeptestOn)
}

// TestRecordKeptPastResponse: a request kept after its response, read
// from another goroutine while the next requests on the same connection
// are served, still holds its own path, header, variables and context.
// http1's memory for a request and the server's record of it (h1Record)
// are made afresh for each request: were either reused for the next one
// on the connection, the values read here would change, and under -race
// the next request's writes would be reported against these reads.
func TestRecordKeptPastResponse(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location /keep/ { keeptest_keep; }
	} }`)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 20
	var wg sync.WaitGroup
	check := func(i int, r *http.Request) {
		path := fmt.Sprintf("/keep/%d", i)
		uri := "(no State)"
		if st := vars.FromContext(r.Context()); st != nil {
			uri = st.RequestURI
		}
		if r.URL.Path != path || r.Header.Get("X-N") != fmt.Sprint(i) || uri != path {
			t.Errorf("request %d kept: path %q, X-N %q, $request_uri %q", i, r.URL.Path, r.Header.Get("X-N"), uri)
		}
		if r.Context().Err() == nil {
			t.Errorf("request %d kept: its context has not ended with its response", i)
		}
	}
	br := bufio.NewReader(c)
	var kept []*http.Request
	for i := range n {
		fmt.Fprintf(c, "GET /keep/%d HTTP/1.1\r\nHost: x\r\nX-N: %d\r\n\r\n", i, i)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != fmt.Sprintf("/keep/%d", i) {
			t.Fatalf("request %d: body %q", i, body)
		}
		r := <-keptReqs
		kept = append(kept, r)
		// Read it from another goroutine while the next requests are
		// served, as a handler's goroutine would.
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-r.Context().Done()
			check(i, r)
		}()
	}
	wg.Wait()
	for i, r := range kept {
		check(i, r)
	}
}
