package fastcgimod

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// TestSplitKeepsLast: a level's kept split answers a read of the URI it
// was made for and no other, the same as a level that matches every
// time, in any order of reads, from several goroutines at once too (run
// with -race).
func TestSplitKeepsLast(t *testing.T) {
	re := mustSplit(t)
	lc := &locConf{}
	lc.split.Put(re)
	uris := []string{"/a.php/x", "/a.php/x", "/b.php/y/z", "/a.php/x", "/nophp/", "/nophp/", "/a.php", "/c.php/", "/b.php/y/z"}
	check := func(uri string) error {
		fresh := &locConf{}
		fresh.split.Put(re)
		ws, wi, _ := split(fresh, uri)
		if s, i, _ := split(lc, uri); s != ws || i != wi {
			return fmt.Errorf("%s: kept %q %q, matched %q %q", uri, s, i, ws, wi)
		}
		return nil
	}
	for _, u := range uris {
		if err := check(u); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if err := check(uris[(g+i)%len(uris)]); err != nil {
					t.Error(err) // safe from any goroutine
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSplitReads reads a request's split as Debian's PHP snippet
// and fastcgi.conf do (SCRIPT_FILENAME, SCRIPT_NAME, PATH_INFO): three
// reads of one URI, a different URI each request, so that every request
// matches at least once.
func BenchmarkSplitReads(b *testing.B) {
	re, err := pcre.Compile(`^(.+?\.php)(/.*)$`, false)
	if err != nil {
		b.Fatal(err)
	}
	lc := &locConf{}
	lc.split.Put(re)
	uris := make([]string, 1024)
	for i := range uris {
		uris[i] = fmt.Sprintf("/app/page%d.php/some/path/%d", i, i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		u := uris[i%len(uris)]
		split(lc, u)
		split(lc, u)
		split(lc, u)
	}
}
