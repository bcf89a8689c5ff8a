package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// postSeen records the requests that reach "subtest_post" locations.
var postSeen struct {
	sync.Mutex
	reqs []string
}

// postHung receives the error of a "subtest_post hang" request's
// context once it ends.
var postHung = make(chan error, 10)

// postTestModule: "subtest_post" makes a location whose content records
// the request's method and URI and answers 202 with a body nobody should
// see; "subtest_post hang" waits for its request's context to end first.
var postTestModule = &Module{
	Name:   "subtest_post",
	NewLoc: func() any { return new(string) },
	Directives: []Directive{{Name: "subtest_post", Context: CtxLocation, MaxArgs: 1, Set: func(c *Cmd) error {
		*c.Loc().(*string) = "on " + strings.Join(c.Args, "")
		return nil
	}}},
}

func init() {
	postTestModule.Content = func(l *Location) (http.Handler, error) {
		mode := *LocConf[*string](l, postTestModule)
		if mode == "" {
			return nil, nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			postSeen.Lock()
			postSeen.reqs = append(postSeen.reqs, r.Method+" "+r.URL.RequestURI())
			postSeen.Unlock()
			if mode == "on hang" {
				<-r.Context().Done()
				postHung <- r.Context().Err()
			}
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, "post action answer")
		}), nil
	}
	contentOrder = append(contentOrder, postTestModule.Name)
	Register(postTestModule)
}

func takePostSeen() []string {
	postSeen.Lock()
	defer postSeen.Unlock()
	out := postSeen.reqs
	postSeen.reqs = nil
	return out
}

// A post action runs once the answer has gone, for every request on a
// keep-alive connection, and writes nothing to the client: not its own
// answer, not what its location's output filters write at their end.
func TestPostActionAnswersNothing(t *testing.T) {
	takePostSeen()
	_, url := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location /a { post_action /pa; return 200 "main"; }
		location /n { post_action @pa; return 200 "named"; }
		location @pa { subtest_tag late; subtest_post; }
		location /pa { internal; subtest_tag late; subtest_post; }
	} }`)
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for _, path := range []string{"/a?x=1", "/n?y=2", "/a"} {
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Tag") != "" || resp.Header.Get("X-Late") != "" {
			t.Errorf("%s: %d %v %q", path, resp.StatusCode, resp.Header, b)
		}
	}
	// Nothing more comes on the connection once it is closed.
	_, _ = io.WriteString(c, "GET /a HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
	rest, _ := io.ReadAll(br)
	if !strings.HasPrefix(string(rest), "HTTP/1.1 200") || !strings.HasSuffix(string(rest), "\r\n\r\nmain") {
		t.Errorf("last answer: %q", rest)
	}
	want := []string{"GET /pa", "GET /n?y=2", "GET /pa", "GET /pa"}
	if got := takePostSeen(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("post actions: %q, want %q", got, want)
	}
}

// A post_action that its own location inherits runs again until the
// request's internal redirects are spent, as in NGINX: ten times.
func TestPostActionInheritedIsBounded(t *testing.T) {
	takePostSeen()
	rt, url := startRuntime(t, `http { server { listen 127.0.0.1:0;
		post_action /pa;
		location /a { return 200 "main"; }
		location /pa { subtest_post; }
	} }`)
	resp, body := get(t, url+"/a")
	if resp.StatusCode != http.StatusOK || body != "main" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	// The client has its answer before the post actions end; a shutdown
	// waits for them, as for any request in flight, and then every post
	// action that was to run has run.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatalf("the post actions did not end: %v", err)
	}
	if got := takePostSeen(); len(got) != maxRedirects {
		t.Errorf("%d post actions, want %d", len(got), maxRedirects)
	}
}

// A post action outlives its client but not the shutdown limit, which
// cuts it as it cuts the requests in flight.
func TestPostActionCutByShutdown(t *testing.T) {
	takePostSeen()
	rt, url := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location /a { post_action /hang; return 200 "main"; }
		location /hang { subtest_post hang; }
	} }`)
	resp, body := get(t, url+"/a")
	if resp.StatusCode != http.StatusOK || body != "main" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	select {
	case err := <-postHung:
		t.Fatalf("the post action ended with its client's answer: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = rt.Shutdown(ctx)
	// Shutdown has returned: the post action's end, if it was cut,
	// follows at once; a minute says it was not.
	select {
	case <-postHung:
	case <-time.After(time.Minute):
		t.Fatal("the post action outlived the shutdown limit")
	}
}
