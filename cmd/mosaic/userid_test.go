package main

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// uidAnswer is what a userid location answers: its Set-Cookie and P3P
// fields and the body "$uid_got|$uid_set", with a new identifier's
// varying parts (time, process, sequence) replaced by what they must be:
// NEW for the cookie's 22 characters, and for its words in hex the first
// (the server's address or the service) and the shape of the rest.
func uidAnswer(t *testing.T, port int, path, cookie string) string {
	t.Helper()
	req := "GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
	if cookie != "" {
		req += "Cookie: " + cookie + "\r\n"
	}
	resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req+"\r\n")
	set := resp.Header.Values("Set-Cookie")
	out := fmt.Sprintf("%d Set-Cookie %q P3P %q body %q", resp.StatusCode, set, resp.Header.Values("P3P"), body)
	for _, c := range set {
		name, rest, _ := strings.Cut(c, "=")
		if len(rest) < 24 || strings.HasPrefix(cookie, name+"="+rest[:22]) {
			continue // the client's own cookie, sent again marked
		}
		id, err := base64.RawStdEncoding.DecodeString(rest[:22])
		if err != nil || len(id) != 16 {
			t.Errorf("cookie %q does not decode", c)
			continue
		}
		// A new identifier: its words vary with the time and the process;
		// the first is fixed, the hex in the body is its.
		hex := fmt.Sprintf("%08X%08X%08X%08X", le(id[0:]), le(id[4:]), le(id[8:]), le(id[12:]))
		out = strings.ReplaceAll(out, rest[:22], fmt.Sprintf("NEW(%x)", id[:4]))
		out = strings.ReplaceAll(out, hex, fmt.Sprintf("HEX(%08X)", le(id[0:])))
	}
	return regexp.MustCompile(`expires=\w{3}, \d\d-\w{3}-\d\d \d\d:\d\d:\d\d GMT`).ReplaceAllString(out, "expires=DATE")
}

func le(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }

// userid sets and reads its cookie as NGINX's module: the same cookie
// format and attributes, an identifier NGINX gave read the same way
// ($uid_got), a cookie without the mark sent again with it, a bad cookie
// replaced, "set $uid_reset" (in any case) giving a new one, v1's layout,
// log and off; a cookie with "=" among its 22 characters is read up to
// it.
func TestUseridAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			userid on; userid_name sid; userid_domain example.com; userid_path /app;
			userid_expires 30d; userid_flags secure httponly samesite=lax; userid_p3p 'CP="NOI"';
			userid_mark X;
			location / { return 200 "$uid_got|$uid_set"; }
			location /reset { set $uid_reset 1; return 200 "$uid_got|$uid_set"; }
			location /upper { set $UID_Reset 1; return 200 "$uid_got|$uid_set|$uid_reset"; }
			location /v1 { userid v1; userid_service 42; userid_mark off; userid_expires max;
				userid_flags off; userid_p3p none; return 200 "$uid_got|$uid_set"; }
			location /log { userid log; return 200 "$uid_got|$uid_set"; }
			location /off { userid off; return 200 "$uid_got|$uid_set"; }
		}`, port)
	})
	// An identifier as NGINX hands them out, with and without the mark.
	known := "CgAAAmbVd0QDAwMCHBEAAg"
	for _, path := range []string{"/", "/reset", "/upper", "/v1", "/log", "/off"} {
		for _, cookie := range []string{"", "sid=" + known + "X=", "sid=" + known + "==", "sid=" + known,
			"sid=short", "sid=!!!!!!!!!!!!!!!!!!!!!!!!", "other=1; sid=" + known + "X=; x=2", "SID=" + known + "X=",
			// NGINX reads the 22 characters up to an "=" among them.
			"sid=" + known[:20] + "==", "sid=" + known[:16] + "======"} {
			m, n := uidAnswer(t, mport, path, cookie), uidAnswer(t, nport, path, cookie)
			if m != n {
				t.Errorf("%s with %q:\nmosaic %s\nnginx  %s", path, cookie, m, n)
			}
		}
	}
}

// userid's directives refuse what NGINX's refuse, with its words.
func TestUseridErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, line := range []string{"userid maybe;", "userid_mark ab;", "userid_mark -;", "userid_expires soon;",
		"userid_flags secure sometimes;", "userid_service x;", "userid on; userid off;"} {
		mout, err, nginx := testBoth(t, dir, i, line)
		if err == nil || nginx == "" || !strings.Contains(mout, ":2") {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", line, mout, nginx)
		}
	}
}
