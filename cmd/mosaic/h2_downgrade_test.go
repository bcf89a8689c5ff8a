package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestH2DowngradeAsNGINX: what an HTTP/2 request turns into on an
// HTTP/1.1 upstream, beside NGINX on the same configuration, each
// upstream a raw listener that records the bytes it gets. HPACK carries
// any byte, so a field value with CR, LF or NUL, an uppercase name or
// one with ":", a "content-length" the DATA frames disagree with,
// connection-specific fields, a :path or :method with spaces, and a Host
// against :authority are each a header injection, a desync or a change
// of route if passed on. The head that reached each upstream is compared
// (a body that disagrees with its length shows in its Content-Length). Where NGINX refuses the stream, mosaic refuses it
// too; where NGINX passes it, mosaic sends the same bytes, or (stricter)
// refuses: NGINX forwards DEL in a value, connection-specific fields
// (RFC 9113 8.2.2 makes the request malformed; Go's server answers
// 400 or resets) and userinfo in :authority, which becomes NGINX's Host.
func TestH2DowngradeAsNGINX(t *testing.T) {
	nginxPath(t)
	origins := map[string]*recordingOrigin{"m": newRecordingOrigin(t), "n": newRecordingOrigin(t)}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2; server_name a.example; access_log off;
			location / { proxy_pass http://%s; proxy_set_header Host $host; proxy_set_header X-Host $http_host; }
			location /blocked { return 403; } }`, port, origins[who].addr())
	})
	get := func(fields ...string) []string { return withFields(h2cGet("/x"), fields...) }
	post := func(fields ...string) []string { return get(append([]string{":method", "POST"}, fields...)...) }
	for _, c := range []struct {
		name     string
		fields   []string
		data     string // sent with END_STREAM after the header; "" ends with it
		stricter bool   // NGINX passes it on; mosaic refuses it
		cut      string // mosaic sends this target where NGINX sends :path
	}{
		{"CR in a value", get("x-a", "a\rb"), "", false, ""},
		{"LF in a value", get("x-a", "a\nX-Injected: 1"), "", false, ""},
		{"NUL in a value", get("x-a", "a\x00b"), "", false, ""},
		{"uppercase name", get("X-A", "1"), "", false, ""},
		{"colon in a name", get("x:a", "1"), "", false, ""},
		{"space in a name", get("x a", "1"), "", false, ""},
		{"underscore in a name", get("x_a", "1"), "", false, ""},
		{"te: trailers", get("te", "trailers"), "", false, ""},
		{"host against :authority", get("host", "b.example"), "", false, ""},
		{"LF in host", get("host", "a.example\nX: y"), "", false, ""},
		{"slash in :authority", get(":authority", "a.example/x"), "", false, ""},
		{"space in :path", get(":path", "/a HTTP/1.1"), "", false, ""},
		{"space in the query", get(":path", "/a?b c"), "", false, ""},
		{"tab in :path", get(":path", "/a\tb"), "", false, ""},
		{"climbing :path", get(":path", "/a/../../blocked"), "", false, ""},
		{"dot segments to a location", get(":path", "/x/../blocked"), "", false, ""},
		{"fragment before a location", get(":path", "/blocked#x"), "", false, ""},
		{"high bytes in :path", get(":path", "/a\xffb"), "", false, ""},
		{"lowercase :method", get(":method", "get"), "", false, ""},
		{"space in :method", get(":method", "GET /y"), "", false, ""},
		{"unknown :method", get(":method", "FOO"), "", false, ""},
		{"more DATA than content-length", post("content-length", "3"), "abcdefGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n", false, ""},
		{"less DATA than content-length", post("content-length", "100"), "abc", false, ""},
		{"two content-length", post("content-length", "3", "content-length", "4"), "abc", false, ""},
		{"content-length list", post("content-length", "3, 3"), "abc", false, ""},
		{"signed content-length", post("content-length", "+3"), "abc", false, ""},
		{"no content-length", post(), "abc", false, ""},
		{"content-length with END_STREAM", post("content-length", "5"), "", false, ""},
		{"DEL in a value", get("x-a", "a\x7fb"), "", true, ""},
		{"transfer-encoding", get("transfer-encoding", "chunked"), "", true, ""},
		{"connection", get("connection", "close"), "", true, ""},
		{"keep-alive", get("keep-alive", "1"), "", true, ""},
		{"upgrade", get("upgrade", "websocket"), "", true, ""},
		{"proxy-connection", get("proxy-connection", "x"), "", true, ""},
		{"te: gzip", get("te", "gzip"), "", true, ""},
		{"userinfo in :authority", get(":authority", "u@b.example"), "", true, ""},
		// A '#' in :path: both route the path before it (NGINX's complex
		// URI parse stops there, on HTTP/2 as on HTTP/1.1); NGINX sends
		// the whole target on, mosaic the path it routed, as on HTTP/1.1
		// (ruleCases' "fragment cut before proxying"): an upstream that
		// takes "/x#/../blocked" as a path would serve /blocked, which
		// the front refused to route.
		{"fragment in :path", get(":path", "/a#b"), "", false, "/a"},
		{"fragment with dot segments", get(":path", "/x#/../blocked"), "", false, "/x"},
		{"fragment and query", get(":path", "/a?c=d#b"), "", false, "/a?c=d"},
		{"query in the fragment", get(":path", "/a#b?c=d"), "", false, "/a"},
	} {
		var got [2]string
		for i, who := range []string{"m", "n"} {
			port := map[string]int{"m": mport, "n": nport}[who]
			h := dialH2C(t, port)
			h.headers(t, 1, c.data == "", c.fields...)
			if c.data != "" {
				_ = h.fr.WriteData(1, true, []byte(c.data))
			}
			status := h.status(1)
			_ = h.Close()
			head := origins[who].take()
			if head == "" {
				head = "nothing"
			}
			got[i] = fmt.Sprintf("%s %q", status, head)
		}
		m, n := got[0], got[1]
		if c.cut != "" {
			path := c.fields[indexField(c.fields, ":path")+1]
			n = strings.Replace(n, "GET "+path+" ", "GET "+c.cut+" ", 1)
		}
		switch {
		case c.stricter && (!strings.HasSuffix(m, `"nothing"`) || strings.HasSuffix(n, `"nothing"`)):
			t.Errorf("%s: mosaic %q, NGINX %q; want mosaic to refuse what NGINX passes on", c.name, m, n)
		case !c.stricter && m != n && !(strings.HasSuffix(m, `"nothing"`) && strings.HasSuffix(n, `"nothing"`)):
			t.Errorf("%s:\nmosaic %q\nNGINX  %q", c.name, m, n)
		}
	}
}

// withFields is base with fields added, name, value pairs: a
// pseudo-header field that base has replaces its value, any other is
// added.
func withFields(base []string, fields ...string) []string {
	for i := 0; i+1 < len(fields); i += 2 {
		if j := indexField(base, fields[i]); j >= 0 && strings.HasPrefix(fields[i], ":") {
			base[j+1] = fields[i+1]
		} else {
			base = append(base, fields[i], fields[i+1])
		}
	}
	return base
}

func indexField(fields []string, name string) int {
	for i := 0; i < len(fields); i += 2 {
		if fields[i] == name {
			return i
		}
	}
	return -1
}
