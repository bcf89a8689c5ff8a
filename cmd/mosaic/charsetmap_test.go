package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// koi8rLetters are KOI8-R's bytes 0xC0 to 0xDF (the lower-case letters
// in its order); 0xE0 to 0xFF are their capitals (RFC 1489).
const koi8rLetters = "юабцдефгхийклмнопярстужвьызшэщчъ"

// cyrillic returns the code point of each Cyrillic letter KOI8-R and
// windows-1251 share, by byte: windows-1251 has А..я at 0xC0..0xFF.
func cyrillicTables() (koi, win map[byte]rune) {
	koi, win = map[byte]rune{}, map[byte]rune{}
	for i, r := range []rune(koi8rLetters) {
		koi[byte(0xC0+i)] = r
		koi[byte(0xE0+i)] = r - 0x20 // the capitals of а..я are 0x20 below
	}
	for i := 0; i < 64; i++ {
		win[byte(0xC0+i)] = rune(0x410 + i)
	}
	// ё and Ё, and a few signs of each, as Debian's maps have them.
	koi[0xA3], koi[0xB3], koi[0x9A], koi[0xBF], koi[0x95] = 'ё', 'Ё', '\u00a0', '©', '•'
	win[0xB8], win[0xA8], win[0xA0], win[0xA9], win[0x95] = 'ё', 'Ё', '\u00a0', '©', '•'
	win[0x85], win[0x96], win[0x97], win[0xB9], win[0x88] = '…', '–', '—', '№', '€'
	win[0xAB], win[0xBB] = '«', '»'
	return koi, win
}

// charsetMapFiles writes Debian's three maps (koi-win, koi-utf, win-utf,
// with comments and tabs as Debian's) built from the tables above.
func charsetMapFiles(t *testing.T, dir string) {
	koi, win := cyrillicTables()
	byRune := map[rune]byte{}
	for b, r := range win {
		byRune[r] = b
	}
	var kw, ku, wu strings.Builder
	kw.WriteString("# koi8-r to windows-1251\ncharset_map  koi8-r  windows-1251 {\n")
	ku.WriteString("charset_map  koi8-r  utf-8 {\n")
	wu.WriteString("charset_map\twindows-1251\tutf-8 {\n")
	for b := 0x80; b < 0x100; b++ {
		if r, ok := koi[byte(b)]; ok {
			if w, ok := byRune[r]; ok {
				fmt.Fprintf(&kw, "    %02X  %02X ; # %c\n", b, w, r)
			}
			fmt.Fprintf(&ku, "    %02X  %X ; # %c\n", b, []byte(string(r)), r)
		}
		if r, ok := win[byte(b)]; ok {
			fmt.Fprintf(&wu, "\t%02x\t%x; # %c\n", b, []byte(string(r)), r)
		}
	}
	for _, s := range []*strings.Builder{&kw, &ku, &wu} {
		s.WriteString("}\n")
	}
	writeFile(t, filepath.Join(dir, "koi-win"), kw.String())
	writeFile(t, filepath.Join(dir, "koi-utf"), ku.String())
	writeFile(t, filepath.Join(dir, "win-utf"), wu.String())
}

// encode turns UTF-8 text into a single-byte charset by table; a
// character the table lacks stays as it is.
func encode(s string, table map[byte]rune) string {
	back := map[rune]byte{}
	for b, r := range table {
		back[r] = b
	}
	var out []byte
	for _, r := range s {
		if b, ok := back[r]; ok {
			out = append(out, b)
		} else {
			out = append(out, string(r)...)
		}
	}
	return string(out)
}

// The texts: Russian with the signs the maps have and some they lack.
const (
	charsetText = "Съешь же ещё этих мягких французских булок, да выпей чаю. ЁЛКА ёж\u00a0© • " +
		"ШИРОКАЯ ЭЛЕКТРИФИКАЦИЯ ЮЖНЫХ ГУБЕРНИЙ ДАСТ МОЩНЫЙ ТОЛЧОК ПОДЪЁМУ СЕЛЬСКОГО ХОЗЯЙСТВА.\n"
	// utf8Extra has what the single-byte maps lack or cannot be:
	// characters outside them, outside the BMP, surrogates, and invalid
	// bytes (a lead byte followed by ASCII, overlong, past U+10FFFF).
	utf8Extra = "«кавычки» № 5 … €10 — – 中文 😀 \xed\xa0\x80 \xc0\x80 \xd0A \xf4\x90\x80\x80 \xff end\n"
)

func TestCharsetMapMatchesNGINX(t *testing.T) {
	nginxPath(t)
	koi, win := cyrillicTables()
	dir := t.TempDir()
	charsetMapFiles(t, dir)
	files := filepath.Join(dir, "files")
	utf8Body := strings.Repeat(charsetText, 3) + utf8Extra
	koiBody := encode(strings.Repeat(charsetText, 3), koi) + "\x80\x81 unmapped\n"
	winBody := encode(strings.Repeat(charsetText, 3)+"«» № … € — –", win) + "\x98 unmapped\n"
	for name, body := range map[string]string{
		"utf.html": utf8Body, "koi.html": koiBody, "win.html": winBody,
		// A UTF-8 text cut inside its last character, and one with no
		// character the map must recode (NGINX then sends the bytes as
		// they are, unmapped ones included, to UTF-8).
		"cut.html": utf8Body + "\xd0", "plain.html": "ascii \x80\x81 only\n",
		"utf.json": utf8Body,
		// Includes are recoded from their own charset into the page's.
		"ssi.html": "Привет <!--# include virtual=\"/inc/koi.html\" --> | <!--# include virtual=\"/incx/utf.html\" --> | " +
			"<!--# include virtual=\"/incu/utf.html\" --> | <!--# include virtual=\"/incp/koi\" -->\n",
	} {
		writeFile(t, filepath.Join(files, name), body)
	}

	// The upstream writes its body in pieces, each cut one byte into a
	// UTF-8 character where it has some, so that the recoder must join
	// characters split across reads.
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ct := utf8Body, "text/html; charset=utf-8"
		switch {
		case strings.HasSuffix(r.URL.Path, "/koi"):
			body, ct = koiBody, "text/html; charset=koi8-r"
		case strings.HasSuffix(r.URL.Path, "/params"):
			// NGINX takes all that follows "charset=" for the charset,
			// here one it does not know: nothing is recoded.
			body, ct = koiBody, "text/html; charset=koi8-r; q=1"
		case strings.HasSuffix(r.URL.Path, "/qfirst"):
			// What comes before the charset stays, spaces included.
			body, ct = koiBody, "text/html; q=1; charset=koi8-r"
		case strings.HasSuffix(r.URL.Path, "/spaced"):
			body, ct = koiBody, "text/html ; charset=koi8-r"
		case strings.HasSuffix(r.URL.Path, "/empty"):
			// No charset: NGINX takes source_charset's.
			body, ct = winBody, "text/html;charset="
		case strings.HasSuffix(r.URL.Path, "/quoted"):
			body, ct = koiBody, `text/html; charset="koi8-r"`
		case strings.HasSuffix(r.URL.Path, "/win"):
			body, ct = winBody, "text/plain"
		case strings.HasSuffix(r.URL.Path, "/enc"):
			// An encoded body is left alone (this one only says it is).
			w.Header().Set("Content-Encoding", "br")
		case strings.HasSuffix(r.URL.Path, "/accel"):
			w.Header().Set("X-Accel-Charset", "koi8-r")
		case strings.HasSuffix(r.URL.Path, "/echo"):
			// What the request's body was, in hex: NGINX does not
			// recode a request.
			b, _ := io.ReadAll(r.Body)
			body = fmt.Sprintf("%x\n", b)
		}
		w.Header().Set("Content-Type", ct)
		if strings.HasSuffix(r.URL.Path, "/moved") {
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(http.StatusMovedPermanently)
		}
		for _, p := range pieces(body) {
			w.Write([]byte(p))
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}))
	defer origin.Close()
	originAddr := origin.Listener.Addr().String()

	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
			include %[3]s/koi-win; include %[3]s/koi-utf; include %[3]s/win-utf;
			types { application/json json; } default_type text/html; server_tokens off;
			server {
				listen 127.0.0.1:%[1]d; root %[3]s/files;
				location /k2w/ { alias %[3]s/files/; charset windows-1251; source_charset koi8-r; }
				location /w2k/ { alias %[3]s/files/; charset koi8-r; source_charset windows-1251; }
				location /k2u/ { alias %[3]s/files/; charset utf-8; source_charset koi8-r; }
				location /u2k/ { alias %[3]s/files/; charset koi8-r; source_charset utf-8; }
				location /w2u/ { alias %[3]s/files/; charset utf-8; source_charset windows-1251; }
				location /u2w/ { alias %[3]s/files/; charset windows-1251; source_charset utf-8; }
				location /p/ { proxy_pass http://%[2]s; charset windows-1251; override_charset on; }
				location /keep/ { proxy_pass http://%[2]s; charset windows-1251; }
				location /src/ { proxy_pass http://%[2]s; charset utf-8; source_charset windows-1251; }
				location /off/ { proxy_pass http://%[2]s; charset off; source_charset koi8-r; }
				location /ssi/ { alias %[3]s/files/; ssi on; charset windows-1251; source_charset utf-8; }
				location /ssik/ { alias %[3]s/files/; ssi on; charset koi8-r; source_charset utf-8; }
				location /gz/ { alias %[3]s/files/; gzip on; gzip_min_length 1; charset koi8-r; source_charset utf-8; }
				location /if/ { alias %[3]s/files/; source_charset utf-8; if ($arg_k) { charset koi8-r; } }
				location /add/ { alias %[3]s/files/; add_before_body /inc/koi.html; add_after_body /incx/utf.html; charset windows-1251; source_charset utf-8; }
				location /inc/ { alias %[3]s/files/; source_charset koi8-r; }
				location /incx/ { alias %[3]s/files/; source_charset utf-8; }
				location /incu/ { alias %[3]s/files/; }
				location /incp/ { proxy_pass http://%[2]s; }
				location = /text { charset koi8-r; source_charset utf-8; return 200 "ёжик и €\n"; }
				location = /moved { charset koi8-r; source_charset utf-8; return 301 /elsewhere; }
			}`, port, originAddr, dir)
	})
	reqs := [][2]string{
		{"POST /p/echo HTTP/1.1\r\nContent-Length: 8", "ёжик"},
		{"HEAD /u2w/utf.html HTTP/1.1", ""},
		// Compression takes the recoded text, in both.
		{"GET /gz/utf.html HTTP/1.1\r\nAccept-Encoding: gzip", ""},
		// A range of a body recoded to or from UTF-8 is not offered (its
		// length is unknown); between single-byte charsets it is.
		{"GET /u2w/utf.html HTTP/1.1\r\nRange: bytes=0-9", ""},
		{"GET /k2u/koi.html HTTP/1.1\r\nRange: bytes=0-9", ""},
		{"GET /k2w/koi.html HTTP/1.1\r\nRange: bytes=0-9", ""},
	}
	for _, path := range []string{
		"/k2w/koi.html", "/w2k/win.html", "/k2u/koi.html", "/k2u/plain.html", "/u2k/utf.html",
		"/w2u/win.html", "/u2w/utf.html", "/u2w/cut.html", "/u2k/cut.html", "/u2w/utf.json",
		"/p/utf", "/p/koi", "/p/params", "/p/qfirst", "/p/spaced", "/p/quoted", "/p/win", "/keep/utf", "/src/win", "/src/empty", "/off/koi", "/p/accel", "/off/accel",
		"/p/moved", "/src/moved", "/p/enc", "/u2w/missing", "/text", "/moved",
		"/ssi/ssi.html", "/ssik/ssi.html", "/add/utf.html", "/if/utf.html", "/if/utf.html?k=1",
	} {
		reqs = append(reqs, [2]string{"GET " + path + " HTTP/1.1", ""})
	}
	sameCharsetAnswers(t, mport, nport, reqs)
}

// pieces cuts s after the first byte of every third multi-byte UTF-8
// character, or every 7 bytes in a text without them. NGINX 1.22 joins
// a character cut after its first byte as 1.23 does; cut later, it reads
// past its buffer (README).
func pieces(s string) []string {
	var out []string
	start, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xc2 && s[i] < 0xf0 && i+3 < len(s) {
			n++
			if n%3 == 0 && i+1-start > 0 {
				out = append(out, s[start:i+1])
				start = i + 1
			}
		}
	}
	if n == 0 {
		for len(s)-start > 7 {
			out = append(out, s[start:start+7])
			start += 7
		}
	}
	return append(out, s[start:])
}

// sameCharsetAnswers sends each request (head and body) to mosaic and
// NGINX, all at once: the origin sends its bodies in pieces 5 ms apart,
// and one request after the other waited most of half a minute. It then
// compares each pair of answers as sameCharsetAnswer does.
func sameCharsetAnswers(t *testing.T, mport, nport int, reqs [][2]string) {
	t.Helper()
	type answer struct {
		resp *http.Response
		body string
		err  error
	}
	answers := make([][2]answer, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		req := r[0] + "\r\nHost: a.test\r\nConnection: close\r\n\r\n" + r[1]
		for j, port := range []int{mport, nport} {
			wg.Go(func() {
				a := &answers[i][j]
				a.resp, a.body, a.err = testclient.RawTry("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(port)), req)
			})
		}
	}
	wg.Wait()
	for i, r := range reqs {
		m, n := answers[i][0], answers[i][1]
		if m.err != nil || n.err != nil {
			t.Fatalf("%s: mosaic %v, nginx %v", r[0], m.err, n.err)
		}
		sameCharsetAnswer(t, r[0], m.resp, n.resp, m.body, n.body)
	}
}

// sameCharsetAnswer compares status, body, Content-Type and, where NGINX
// sends one, Content-Length (mosaic's compression also sends one for a
// short body it compressed whole, where NGINX's gzip chunks).
func sameCharsetAnswer(t *testing.T, head string, m, n *http.Response, mb, nb string) {
	t.Helper()
	if m.Header.Get("Content-Encoding") != n.Header.Get("Content-Encoding") {
		t.Errorf("%s: Content-Encoding mosaic %q, nginx %q", head, m.Header.Get("Content-Encoding"), n.Header.Get("Content-Encoding"))
	}
	mb, nb = gunzipped(t, m, mb), gunzipped(t, n, nb)
	// The error pages differ in the server's name only.
	nb = strings.ReplaceAll(nb, "<center>nginx</center>", "<center>mosaic</center>")
	if m.StatusCode != n.StatusCode || mb != nb {
		t.Errorf("%s: mosaic %d %q\n nginx %d %q", head, m.StatusCode, mb, n.StatusCode, nb)
	}
	if mv, nv := m.Header.Get("Content-Type"), n.Header.Get("Content-Type"); mv != nv {
		t.Errorf("%s: Content-Type mosaic %q, nginx %q", head, mv, nv)
	}
	if nv := n.Header.Get("Content-Length"); nv != "" && m.Header.Get("Content-Length") != nv {
		t.Errorf("%s: Content-Length mosaic %q, nginx %q", head, m.Header.Get("Content-Length"), nv)
	}
}
