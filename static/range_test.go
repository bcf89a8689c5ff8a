package static

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"regexp"
	"strings"
	"testing"
)

func TestSingleRange(t *testing.T) {
	fx := serve(t, nil)
	for _, c := range []struct{ spec, body, contentRange string }{
		{"bytes=2-4", "cde", "bytes 2-4/26"},
		{"bytes=20-", "uvwxyz", "bytes 20-25/26"},
		{"bytes=-3", "xyz", "bytes 23-25/26"},
		{"bytes=-100", alphabet, "bytes 0-25/26"},
		{"bytes=24-100", "yz", "bytes 24-25/26"},
		{"BYTES = 0-0", "", ""}, // not the "bytes=" unit: ignored
		{"bytes= 1 - 2 ", "bc", "bytes 1-2/26"},
		{"bytes=0-0,30-40", "a", "bytes 0-0/26"}, // unsatisfiable ranges are dropped
		{"items=0-1", "", ""},
	} {
		resp, body := fx.do("GET", "/a.txt", "Range", c.spec)
		// Past the fields askedFor scans, the same answer.
		padded, _ := fx.do("GET", "/a.txt", append(padding(scanFields), "Range", c.spec)...)
		if padded.StatusCode != resp.StatusCode || padded.Header.Get("Content-Range") != resp.Header.Get("Content-Range") {
			t.Errorf("%s: with %d more fields %d %q, without %d %q", c.spec, scanFields,
				padded.StatusCode, padded.Header.Get("Content-Range"), resp.StatusCode, resp.Header.Get("Content-Range"))
		}
		if c.contentRange == "" {
			expect(t, resp, 200, "Accept-Ranges", "bytes", "Content-Range", "-")
			if body != alphabet {
				t.Errorf("%s: body %q", c.spec, body)
			}
			continue
		}
		// NGINX leaves Accept-Ranges out of a 206.
		expect(t, resp, 206, "Content-Range", c.contentRange, "Content-Length", fmt.Sprint(len(c.body)),
			"Content-Type", "text/plain; charset=utf-8", "ETag", etagA, "Last-Modified", fixedLastModified,
			"Accept-Ranges", "-")
		if body != c.body {
			t.Errorf("%s: body %q, want %q", c.spec, body, c.body)
		}
	}
}

func TestRangeOfLargerFile(t *testing.T) {
	fx := serve(t, nil)
	file := strings.Repeat("0123456789abcdef", 256)
	resp, body := fx.do("GET", "/4k.bin", "Range", "bytes=1000-3999")
	expect(t, resp, 206, "Content-Range", "bytes 1000-3999/4096", "Content-Length", "3000")
	if body != file[1000:4000] {
		t.Errorf("body differs from bytes 1000-3999")
	}
}

func TestMultipleRanges(t *testing.T) {
	fx := serve(t, nil)
	resp, body := fx.do("GET", "/a.txt", "Range", "bytes=0-1,5-6,-2")
	expect(t, resp, 206, "Content-Range", "-", "Accept-Ranges", "-", "ETag", etagA)
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	boundary := params["boundary"]
	if !regexp.MustCompile(`^[0-9]{20}$`).MatchString(boundary) {
		t.Errorf("boundary %q is not NGINX's 20-digit counter", boundary)
	}
	// Byte for byte NGINX's layout.
	part := func(r, data string) string {
		return "\r\n--" + boundary + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes " + r + "/26\r\n\r\n" + data
	}
	want := part("0-1", "ab") + part("5-6", "fg") + part("24-25", "yz") + "\r\n--" + boundary + "--\r\n"
	if body != want {
		t.Errorf("body\n%q\nwant\n%q", body, want)
	}
	if resp.ContentLength != int64(len(want)) {
		t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(want))
	}
	// And a standard reader takes it apart.
	mr := multipart.NewReader(strings.NewReader(body), boundary)
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.Header.Get("Content-Range")+"="+string(data))
	}
	if strings.Join(got, ";") != "bytes 0-1/26=ab;bytes 5-6/26=fg;bytes 24-25/26=yz" {
		t.Errorf("parts %q", got)
	}

	resp, body = fx.do("HEAD", "/a.txt", "Range", "bytes=0-1,5-6")
	expect(t, resp, 206)
	if body != "" || resp.ContentLength <= 0 {
		t.Errorf("HEAD: body %q, length %d", body, resp.ContentLength)
	}
}

func TestRangeNotSatisfiable(t *testing.T) {
	fx := serve(t, nil)
	for _, spec := range []string{"bytes=26-", "bytes=100-200", "bytes=-0", "bytes=5-2", "bytes=x-1", "bytes=1-2;"} {
		resp, body := fx.do("GET", "/a.txt", "Range", spec)
		expect(t, resp, 416, "Content-Range", "bytes */26", "ETag", "-", "Content-Type", "text/html")
		if !strings.Contains(body, "416 Requested Range Not Satisfiable") {
			t.Errorf("%s: body %q", spec, body)
		}
	}
}

func TestRangeWholeFile(t *testing.T) {
	fx := serve(t, nil)
	// Overlapping ranges that add up to more than the file get all of it.
	resp, body := fx.do("GET", "/a.txt", "Range", "bytes=0-20,5-25")
	expect(t, resp, 200, "Accept-Ranges", "bytes")
	if body != alphabet {
		t.Errorf("body %q", body)
	}
}

func TestIfRange(t *testing.T) {
	fx := serve(t, nil)
	for _, c := range []struct {
		ifRange string
		status  int
	}{
		{etagA, 206},
		{`"5f5e1000-1b"`, 200},
		{"W/" + etagA, 200}, // needs a strong match
		{fixedLastModified, 206},
		{after, 200},
		{badDate, 200},
	} {
		resp, _ := fx.do("GET", "/a.txt", "Range", "bytes=0-1", "If-Range", c.ifRange)
		if resp.StatusCode != c.status {
			t.Errorf("If-Range %s: status %d, want %d", c.ifRange, resp.StatusCode, c.status)
		}
	}
}

func TestMaxRanges(t *testing.T) {
	fx := serve(t, func(o *Options) { o.MaxRanges = 2 })
	resp, _ := fx.do("GET", "/a.txt", "Range", "bytes=0-1,3-4")
	expect(t, resp, 206)
	resp, body := fx.do("GET", "/a.txt", "Range", "bytes=0-1,3-4,6-7")
	expect(t, resp, 200)
	if body != alphabet {
		t.Errorf("body %q", body)
	}

	fx = serve(t, func(o *Options) { o.MaxRanges = -1 })
	resp, _ = fx.do("GET", "/a.txt", "Range", "bytes=0-1")
	expect(t, resp, 200, "Accept-Ranges", "-")
}
