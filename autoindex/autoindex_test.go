package autoindex

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

var when = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func TestHTMLLayout(t *testing.T) {
	entries := []Entry{
		{Name: "sub", Dir: true, ModTime: when},
		{Name: strings.Repeat("d", 50), Dir: true, ModTime: when},
		{Name: "a<b>.txt", Regular: true, Size: 123, ModTime: when},
		{Name: strings.Repeat("n", 60), Regular: true, Size: 20000, ModTime: when},
		{Name: "m", Regular: true, Size: 3<<20 + 600<<10, ModTime: when},
	}
	got := string(AppendHTML(nil, "/x&y/", entries, true, false, 0))
	want := "<html>\r\n<head><title>Index of /x&amp;y/</title></head>\r\n<body>\r\n<h1>Index of /x&amp;y/</h1><hr><pre><a href=\"../\">../</a>\r\n" +
		"<a href=\"sub/\">sub/</a>" + strings.Repeat(" ", 46) + " 04-Mar-2021 05:06                   -\r\n" +
		"<a href=\"" + strings.Repeat("d", 50) + "/\">" + strings.Repeat("d", 50) + "</a> 04-Mar-2021 05:06                   -\r\n" +
		"<a href=\"a%3Cb%3E.txt\">a&lt;b&gt;.txt</a>" + strings.Repeat(" ", 42) + " 04-Mar-2021 05:06                 123\r\n" +
		"<a href=\"" + strings.Repeat("n", 60) + "\">" + strings.Repeat("n", 47) + "..&gt;</a> 04-Mar-2021 05:06               20000\r\n" +
		"<a href=\"m\">m</a>" + strings.Repeat(" ", 49) + " 04-Mar-2021 05:06             3760128\r\n" +
		"</pre><hr></body>\r\n</html>\r\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	approx := string(AppendHTML(nil, "/", entries, false, false, time.Hour))
	for _, s := range []string{" 04-Mar-2021 06:06       -\r\n", "    20K\r\n", "      4M\r\n"[1:], "     123\r\n"} {
		if !strings.Contains(approx, s) {
			t.Errorf("approximate listing lacks %q:\n%s", s, approx)
		}
	}
}

func TestXMLAndJSON(t *testing.T) {
	entries := []Entry{
		{Name: "d", Dir: true, ModTime: when},
		{Name: "q\"\\\x01.txt", Regular: true, Size: 5, ModTime: when},
		{Name: "fifo", ModTime: when},
	}
	x := string(AppendXML(nil, entries))
	wantX := "<?xml version=\"1.0\"?>\r\n<list>\r\n<directory mtime=\"2021-03-04T05:06:07Z\">d</directory>\r\n" +
		"<file mtime=\"2021-03-04T05:06:07Z\" size=\"5\">q&quot;\\\x01.txt</file>\r\n<other mtime=\"2021-03-04T05:06:07Z\">fifo</other>\r\n</list>\r\n"
	if x != wantX {
		t.Errorf("xml\n%q\nwant\n%q", x, wantX)
	}
	j := string(AppendJSON(nil, entries, "cb"))
	wantJ := "/* callback */\r\ncb([\r\n{ \"name\":\"d\", \"type\":\"directory\", \"mtime\":\"Thu, 04 Mar 2021 05:06:07 GMT\" },\r\n" +
		"{ \"name\":\"q\\\"\\\\\\u0001.txt\", \"type\":\"file\", \"mtime\":\"Thu, 04 Mar 2021 05:06:07 GMT\", \"size\":5 },\r\n" +
		"{ \"name\":\"fifo\", \"type\":\"other\", \"mtime\":\"Thu, 04 Mar 2021 05:06:07 GMT\" }\r\n]);"
	if j != wantJ {
		t.Errorf("json\n%q\nwant\n%q", j, wantJ)
	}
	if e := string(AppendJSON(nil, nil, "")); e != "[\r\n]" {
		t.Errorf("empty json %q", e)
	}
}

func TestReadOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"b.txt": {Data: []byte("x")}, "A.txt": {}, ".git/x": {}, "z/x": {}, "Y/x": {},
	}
	entries, err := Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "Y z A.txt b.txt" {
		t.Errorf("order %q", got)
	}
}

func TestServeFormatsAndCallback(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("abc"), 0o644)
	fsys := os.DirFS(dir)
	for _, tc := range []struct {
		opts   Options
		query  string
		status int
		ctype  string
	}{
		{Options{}, "", 200, "text/html"},
		{Options{Format: XML}, "", 200, "text/xml; charset=utf-8"},
		{Options{Format: JSON}, "", 200, "application/json"},
		{Options{Format: JSONP}, "callback=a.b_1", 200, "application/javascript"},
		{Options{Format: JSONP}, "callback", 200, "application/json"},
		{Options{Format: JSONP}, "x=1&CALLBACK=f(", 400, ""},
		{Options{Format: JSONP}, "callback=" + strings.Repeat("a", 129), 400, ""},
	} {
		w := httptest.NewRecorder()
		Serve(w, httptest.NewRequest("GET", "/d/?"+tc.query, nil), fsys, "/d/", tc.opts)
		if w.Code != tc.status || (tc.ctype != "" && w.Header().Get("Content-Type") != tc.ctype) {
			t.Errorf("%v %q: %d %q", tc.opts.Format, tc.query, w.Code, w.Header().Get("Content-Type"))
		}
	}
}

func FuzzCallback(f *testing.F) {
	for _, s := range []string{"callback=x", "a=1&callback=y.z", "callback=", "callback=%41", "callback"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		cb, ok := Callback(q)
		if !ok {
			return
		}
		if len(cb) > 128 || strings.ContainsAny(cb, "()<>\"'; &=%") {
			t.Fatalf("unsafe callback %q accepted from %q", cb, q)
		}
		// A listing wrapped in it stays one call of one name.
		out := string(AppendJSON(nil, []Entry{{Name: "x"}}, cb))
		if cb != "" && !strings.HasPrefix(out, "/* callback */\r\n"+cb+"([") {
			t.Fatalf("output %q", out)
		}
	})
}
