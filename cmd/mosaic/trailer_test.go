package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requestTime matches a $request_time value, which differs between the
// two servers; the trailers compare it as "T".
var requestTime = regexp.MustCompile(`\b\d+\.\d{3}\b`)

// chunkedAnswer reads a raw HTTP/1.x answer: the status line, the header
// fields but Date and Server (sorted), the body (de-chunked: the two
// servers cut chunks where their writes fall) and the trailer section as
// sent.
func chunkedAnswer(t *testing.T, raw string) string {
	t.Helper()
	head, rest, _ := strings.Cut(raw, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	fields := []string{}
	chunked := false
	for _, l := range lines[1:] {
		name, _, _ := strings.Cut(l, ":")
		switch strings.ToLower(name) {
		case "date", "server":
			continue
		case "transfer-encoding":
			chunked = true
		}
		fields = append(fields, l)
	}
	slices.Sort(fields)
	out := lines[0] + "\n" + strings.Join(fields, "\n") + "\n\n"
	if !chunked {
		return out + rest
	}
	br := bufio.NewReader(strings.NewReader(rest))
	var body strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return out + body.String() + "\n(chunked body cut short)"
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q in %q", line, raw)
		}
		if n == 0 {
			break
		}
		if _, err := io.CopyN(&body, br, n); err != nil {
			return out + body.String() + "\n(chunked body cut short)"
		}
		br.ReadString('\n')
	}
	trailer, _ := io.ReadAll(br)
	return out + body.String() + "\n-- trailer --\n" + requestTime.ReplaceAllString(string(trailer), "T")
}

// TestAddTrailerAsNGINX sends the same requests to Debian's NGINX and to
// mosaic, over HTTP/1.1 (the trailer section read raw after the last
// chunk), HTTP/1.0 and HEAD (no trailers) and HTTP/2 (the trailing
// HEADERS frame, through Go's client): trailers evaluated at the end of
// the response, only on the statuses add_header uses unless "always",
// an empty value left out, inherited as add_header is.
func TestAddTrailerAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/slow" {
			// The header now, the body later: a trailer counts the wait.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			time.Sleep(300 * time.Millisecond)
		}
		if r.URL.Path == "/moved" {
			w.Header().Set("Location", "/t/")
			w.WriteHeader(http.StatusFound)
		}
		fmt.Fprint(w, "from the origin\n")
	}))
	t.Cleanup(origin.Close)
	h2 := map[string]int{"m": freePort(t), "n": freePort(t)}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`access_log off;
		server {
			listen 127.0.0.1:%d;
			listen 127.0.0.1:%d http2;
			add_trailer X-Server srv;
			location /t/ {
				set $v hello;
				add_trailer X-V "$v-$status";
				add_trailer X-Empty "";
				add_trailer X-Time $request_time;
				add_trailer X-Always yes always;
				return 200 "body\n";
			}
			location /gone/ { add_trailer X-V v; add_trailer X-Always yes always; return 404 "gone\n"; }
			location /moved/ { add_trailer X-V v; add_trailer X-Other o; proxy_pass http://%[3]s/moved; }
			location /empty/ { add_trailer X-V v always; return 204; }
			location /inherited/ { return 200 "inherited\n"; }
			location /headers-only/ { add_header X-H h; return 200 "headers\n"; }
			location /slow/ { add_trailer X-Time $request_time; proxy_buffering off; proxy_pass http://%[3]s/slow; }
			location /proxied/ { add_trailer X-Upstream "$upstream_status $upstream_response_length"; proxy_pass http://%[3]s/; }
		}`, port, h2[who], origin.Listener.Addr())
	})
	paths := []string{"/t/", "/gone/", "/moved/", "/empty/", "/inherited/", "/headers-only/", "/proxied/"}
	for _, path := range paths {
		for _, req := range []string{
			"GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
			"GET " + path + " HTTP/1.0\r\nHost: a.test\r\n\r\n",
			"HEAD " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
		} {
			m := chunkedAnswer(t, sendUntilClosed(t, mport, req))
			n := chunkedAnswer(t, sendUntilClosed(t, nport, req))
			if m != n {
				t.Errorf("%q:\nmosaic:\n%s\nnginx:\n%s", req, m, n)
			}
		}
	}

	// $request_time is read once the body is written, not with the header.
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		raw := sendUntilClosed(t, port, "GET /slow/ HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		_, trailer, _ := strings.Cut(raw, "\r\n0\r\n")
		v, ok := strings.CutPrefix(strings.TrimSpace(trailer), "X-Time: ")
		if secs, err := strconv.ParseFloat(v, 64); !ok || err != nil || secs < 0.3 {
			t.Errorf("%s: trailer %q, want X-Time of 0.3 s or more", who, trailer)
		}
	}

	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protos, Proxy: nil}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range paths {
		var got [2]string
		for i, who := range []string{"m", "n"} {
			resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d%s", h2[who], path))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			var trailers []string
			for k, vv := range resp.Trailer {
				trailers = append(trailers, k+": "+requestTime.ReplaceAllString(strings.Join(vv, ","), "T"))
			}
			slices.Sort(trailers)
			got[i] = fmt.Sprintf("%s %d Content-Length %q body %q (%v) trailers %q", resp.Proto, resp.StatusCode,
				resp.Header.Values("Content-Length"), body, err, trailers)
		}
		if got[0] != got[1] {
			t.Errorf("HTTP/2 GET %s:\nmosaic %s\nnginx  %s", path, got[0], got[1])
		}
	}
}
