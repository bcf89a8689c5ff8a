package userid

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestNewAndKnown(t *testing.T) {
	cfg := &Config{Mode: On, Service: -1, Name: "uid", Path: "/", Mark: 'M', Expires: time.Hour}
	now := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	q := Read(cfg, "")
	set, _ := q.Set("", netip.MustParseAddr("10.0.0.2"), now)
	c := q.Cookie(now)
	if !strings.HasPrefix(set, "uid=0200000A") || !strings.HasPrefix(c, "uid=CgAAA") ||
		!strings.Contains(c, "M=; expires=Sat, 05-Dec-26 09:00:00 GMT; path=/") {
		t.Fatalf("new: %q %q", set, c)
	}
	// The cookie just made reads back as the same identifier, and asks
	// for nothing more.
	value := strings.TrimPrefix(strings.Split(c, ";")[0], "uid=")
	back := Read(cfg, value)
	if got := back.Got(); got != set {
		t.Errorf("read back %q, set %q", got, set)
	}
	if s, _ := back.Set("", netip.Addr{}, now); s != "" || back.Cookie(now) != "" {
		t.Errorf("known cookie set again: %q", s)
	}
	if s, logged := Read(cfg, value).Set("log", netip.Addr{}, now); s == set || !strings.Contains(logged, "was reset") {
		t.Errorf("reset: %q %q", s, logged)
	}
	if CookieTime(time.Date(2040, 1, 2, 3, 4, 5, 0, time.UTC)) != "Mon, 02-Jan-2040 03:04:05 GMT" {
		t.Error("four-digit year after 2037")
	}
}

// A cookie with "=" among its first 22 characters is read up to it, as
// NGINX's base64 decoder stops there: the identifier's rest is zero, and
// only one whose last word is then zero is no identifier.
func TestReadStopsAtPadding(t *testing.T) {
	cfg := &Config{Mode: On, Service: -1, Name: "uid", Path: "/"}
	for cookie, want := range map[string]string{
		"CgAAAmbVd0QDAwMCHBEA==":   "uid=0200000A4477D566020303030000111C",
		"CgAAAmbVd0QDAwMC======xx": "",
		"=CgAAAmbVd0QDAwMCHBEAAg":  "",
	} {
		q := Read(cfg, cookie)
		if got := q.Got(); got != want || q.Err != "" {
			t.Errorf("%q: $uid_got %q (error %q), want %q", cookie, got, q.Err, want)
		}
	}
}

// FuzzRead: any cookie value reads without a panic, and one that gives an
// identifier gives it in the variable's form.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", "short", "CgAAAmbVd0QDAwMCHBEAAgM=", "CgAAAmbVd0QDAwMCHBEAAg", "!!!!!!!!!!!!!!!!!!!!!!!!"} {
		f.Add(s)
	}
	cfg := &Config{Mode: On, Service: -1, Name: "uid", Path: "/", Mark: 'M'}
	f.Fuzz(func(t *testing.T, s string) {
		q := Read(cfg, s)
		if g := q.Got(); g != "" && len(g) != len("uid=")+32 {
			t.Fatalf("%q: $uid_got %q", s, g)
		}
		set, _ := q.Set("", netip.Addr{}, time.Now())
		if q.hasGot && set != "" && !strings.HasPrefix(q.Cookie(time.Now()), "uid="+s[:22]+"M=") {
			t.Fatalf("%q: re-marked cookie %q", s, q.Cookie(time.Now()))
		}
	})
}
