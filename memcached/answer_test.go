package memcached

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
)

func TestEscapeKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/page.html", "/page.html"},
		{"a b", "a%20b"},
		{"100%", "100%25"},
		{"\x00\x01\x1f\x7f", "%00%01%1F\x7f"}, // DEL is left as it is, as NGINX leaves it
		{"caf\u00e9", "caf\u00e9"},            // UTF-8 bytes too
		{"a\r\nset x", "a%0D%0Aset%20x"},      // no second command can be smuggled
	} {
		if got := string(EscapeKey(nil, c.in)); got != c.want {
			t.Errorf("EscapeKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := string(AppendGet(nil, "a b")); got != "get a%20b\r\n" {
		t.Errorf("AppendGet = %q", got)
	}
}

func TestParseAnswer(t *testing.T) {
	key := []byte("k%20x")
	for _, c := range []struct {
		line   string
		gzip   uint64
		want   Answer
		reason string // the InvalidError's, "" for none
	}{
		{line: "VALUE k%20x 0 5\r\n", want: Answer{Found: true, Length: 5}},
		{line: "VALUE k%20x 3 0\r\n", gzip: 2, want: Answer{Found: true, Gzip: true}},
		{line: "VALUE k%20x 1 7\r\n", gzip: 2, want: Answer{Found: true, Length: 7}},
		// Without a gzip flag NGINX does not read the flags at all.
		{line: "VALUE k%20x junk 5\r\n", want: Answer{Found: true, Length: 5}},
		{line: "VALUE k%20x  5\r\n", want: Answer{Found: true, Length: 5}},
		{line: "VALUE k%20x junk 5\r\n", gzip: 1, reason: "invalid flags in response"},
		{line: "VALUE k%20x  5\r\n", gzip: 1, reason: "invalid flags in response"},
		{line: "VALUE k%20x 99999999999999999999 5\r\n", gzip: 1, reason: "invalid flags in response"},
		{line: "END\r\n", want: Answer{}},
		{line: "END\r\x00junk\r\n", want: Answer{}}, // NGINX compares up to the NUL
		{line: "VALUE other 0 5\r\n", reason: "invalid key in response"},
		{line: "VALUE k%20 0 5\r\n", reason: "invalid key in response"},
		{line: "VALUE k%20xy 0 5\r\n", reason: "invalid response"},
		{line: "VALUE k%20x 0 5 42\r\n", reason: "invalid length in response"}, // a CAS value
		{line: "VALUE k%20x 0 -5\r\n", reason: "invalid length in response"},
		{line: "VALUE k%20x 0 \r\n", reason: "invalid length in response"},
		{line: "VALUE k%20x 0 9223372036854775808\r\n", reason: "invalid length in response"},
		{line: "VALUE k%20x 0\r\n", reason: "invalid response"},
		{line: "VALUE k%20x\x000 5\r\n", reason: "invalid response"},
		{line: "VALUE k%20x 0 5\n", reason: "invalid response"},
		{line: "\r\n", reason: "invalid response"},
		{line: "ERROR\r\n", reason: "invalid response"},
		{line: "SERVER_ERROR out of memory\r\n", reason: "invalid response"},
		{line: "END \r\n", reason: "invalid response"},
	} {
		a, err := ParseAnswer([]byte(c.line), key, c.gzip)
		var ie *InvalidError
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%q: %v", c.line, err)
		case c.reason == "" && a != c.want:
			t.Errorf("%q: %+v, want %+v", c.line, a, c.want)
		case c.reason != "" && !errors.As(err, &ie):
			t.Errorf("%q: %+v, %v; want %s", c.line, a, err, c.reason)
		case c.reason != "" && ie.Reason != c.reason:
			t.Errorf("%q: %q, want %q", c.line, ie.Reason, c.reason)
		}
	}
	if a, err := ParseAnswer([]byte("VALUE k 0 9223372036854775807\r\n"), []byte("k"), 0); err != nil || a.Length != math.MaxInt64 {
		t.Errorf("largest length: %+v, %v", a, err)
	}
}

func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("VALUE k 0 1\r\nx"), 16)
	if l, err := ReadLine(br, 13); err != nil || string(l) != "VALUE k 0 1\r\n" {
		t.Errorf("a line of 13 bytes in 13: %q, %v", l, err)
	}
	long := strings.Repeat("a", 40) + "\r\n"
	if _, err := ReadLine(bufio.NewReaderSize(strings.NewReader(long), 16), 41); err != ErrLineTooLong {
		t.Errorf("a line of 42 bytes in 41: %v", err)
	}
	if l, err := ReadLine(bufio.NewReaderSize(strings.NewReader(long), 16), 42); err != nil || string(l) != long {
		t.Errorf("a line of 42 bytes in 42, read in pieces: %q, %v", l, err)
	}
	if _, err := ReadLine(bufio.NewReader(strings.NewReader("VALUE k")), 100); err != io.ErrUnexpectedEOF {
		t.Errorf("a line cut short: %v", err)
	}
}

var quiet = slog.New(slog.DiscardHandler)

// wireGet reads an answer through a Wire for key, and the body whole.
func wireGet(w *Wire, key, answer string) (*http.Response, string, error) {
	return wireDo(w, "GET", key, answer)
}

func wireDo(w *Wire, method, key, answer string) (*http.Response, string, error) {
	w.Key = func(*http.Request) string { return key }
	w.Logger = quiet
	r, _ := http.NewRequest(method, "http://x/a.html", nil)
	resp, err := w.ReadResponse(bufio.NewReaderSize(strings.NewReader(answer), 16), r)
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestWireReadResponse(t *testing.T) {
	w := &Wire{GzipFlag: 2, ContentType: func(*http.Request) string { return "text/html" }}
	resp, body, err := wireGet(w, "a b", "VALUE a%20b 2 5\r\nhello\r\nEND\r\n")
	if err != nil || resp.StatusCode != 200 || body != "hello" || resp.Close ||
		resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "text/html" ||
		resp.ContentLength != 5 || resp.Header.Get("Content-Length") != "5" {
		t.Errorf("hit: %+v %q %v", resp, body, err)
	}
	// A wrong trailer: the value goes out at its length, the connection
	// is not reused.
	resp, body, err = wireGet(w, "k", "VALUE k 0 5\r\nhello world\r\nEND\r\n")
	if err != nil || body != "hello" || !resp.Close {
		t.Errorf("value longer than said: %q %v close=%v", body, err, resp != nil && resp.Close)
	}
	// Cut within the value, or within the trailer: an error.
	if _, body, err = wireGet(w, "k", "VALUE k 0 5\r\nhel"); err != io.ErrUnexpectedEOF || body != "hel" {
		t.Errorf("value cut short: %q %v", body, err)
	}
	if _, _, err = wireGet(w, "k", "VALUE k 0 5\r\nhello\r\nEN"); err != io.ErrUnexpectedEOF {
		t.Errorf("trailer cut short: %v", err)
	}
	// HEAD: the header alone, the value left unread, the connection
	// closed.
	resp, body, err = wireDo(w, "HEAD", "k", "VALUE k 0 5\r\nhello\r\nEND\r\n")
	if err != nil || resp.StatusCode != 200 || body != "" || !resp.Close || resp.Header.Get("Content-Length") != "5" {
		t.Errorf("HEAD: %+v %q %v", resp, body, err)
	}
	resp, body, err = wireGet(w, "k", "END\r\n")
	if err != nil || resp.StatusCode != 404 || body != "" || resp.Close || resp.Body != http.NoBody {
		t.Errorf("miss: %+v %q %v", resp, body, err)
	}
	w.MaxLineSize = 10
	if _, _, err = wireGet(w, "k", "VALUE k 0 5\r\nhello\r\nEND\r\n"); err != ErrLineTooLong {
		t.Errorf("line over memcached_buffer_size: %v", err)
	}
	w.Key = func(*http.Request) string { return "" }
	if _, err := w.AppendHead(nil, &http.Request{}, 0); err != ErrNoKey {
		t.Errorf("no key: %v", err)
	}
}

// FuzzReadResponse feeds memcached answers to the Wire: never a panic,
// a hit's body never longer than its length, and a connection reusable
// only after a value and its exact trailer, or a bare END.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"VALUE k 0 5\r\nhello\r\nEND\r\n", "END\r\n", "VALUE k 3 0\r\n\r\nEND\r\n",
		"VALUE k 0 5 1\r\n", "ERROR\r\n", "VALUE k 0 3\r\nabcdefg", "VALUE k 0 2\r\nab\r\nEXD\r\n",
	} {
		f.Add(s, uint64(2))
	}
	f.Fuzz(func(t *testing.T, answer string, flag uint64) {
		w := &Wire{GzipFlag: flag, MaxLineSize: 64}
		resp, body, err := wireGet(w, "k", answer)
		if resp == nil {
			if err == nil {
				t.Fatal("no response and no error")
			}
			return
		}
		if int64(len(body)) > resp.ContentLength && resp.StatusCode == 200 {
			t.Fatalf("body %q longer than %d", body, resp.ContentLength)
		}
		if !resp.Close && err == nil {
			line, _, _ := strings.Cut(answer, "\n")
			if resp.StatusCode == 200 && !strings.HasPrefix(answer[len(line)+1+len(body):], trailer) {
				t.Fatalf("reusable without its trailer: %q", answer)
			}
		}
	})
}
