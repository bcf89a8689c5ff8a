package spool

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

func temp(t *testing.T) func() (*os.File, error) {
	return func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "body") }
}

func TestMemory(t *testing.T) {
	s, err := New(strings.NewReader("hello"), 5, temp(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.File != nil || string(s.Mem) != "hello" || s.Size != 5 {
		t.Fatalf("got %+v", s)
	}
}

func TestFile(t *testing.T) {
	s, err := New(strings.NewReader("hello world"), 5, temp(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.File == nil || s.Size != 11 {
		t.Fatalf("got %+v", s)
	}
	// Two readers at once each see the whole body.
	a, b := s.Reader(), s.Reader()
	ba, _ := io.ReadAll(a)
	bb, _ := io.ReadAll(b)
	if string(ba) != "hello world" || string(bb) != "hello world" {
		t.Fatalf("read %q, %q", ba, bb)
	}
	name := s.File.Name()
	s.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("file left behind: %v", err)
	}
}

func TestSourceError(t *testing.T) {
	boom := errors.New("boom")
	for _, mem := range []int64{100, 2} {
		src := io.MultiReader(strings.NewReader("abcd"), iotest.ErrReader(boom))
		_, err := New(src, mem, temp(t))
		var se *SourceError
		if !errors.As(err, &se) || !errors.Is(err, boom) {
			t.Fatalf("memory %d: %v", mem, err)
		}
	}
}

func TestTempError(t *testing.T) {
	boom := errors.New("no space")
	_, err := New(strings.NewReader("abcdef"), 2, func() (*os.File, error) { return nil, boom })
	var se *SourceError
	if errors.As(err, &se) || !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

// A body that overflows memory keeps no name in the file system, as
// NGINX unlinks such a file once made.
func TestFileUnlinked(t *testing.T) {
	s, err := New(strings.NewReader("hello world"), 5, temp(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(s.File.Name()); !os.IsNotExist(err) {
		t.Errorf("overflowed body's file still named: %v", err)
	}
	if b, _ := io.ReadAll(s.Reader()); string(b) != "hello world" {
		t.Errorf("read %q", b)
	}
}

// A body sent to a file whatever its size (client_body_in_file_only),
// an empty one too, keeps its name until Close, and after it with Keep.
func TestFileOnly(t *testing.T) {
	for _, keep := range []bool{false, true} {
		for _, body := range []string{"", "hi"} {
			s, err := New(strings.NewReader(body), -1, temp(t))
			if err != nil {
				t.Fatal(err)
			}
			if s.File == nil || s.Mem != nil || s.Size != int64(len(body)) {
				t.Fatalf("file only %q: got %+v", body, s)
			}
			name := s.File.Name()
			if b, err := os.ReadFile(name); err != nil || string(b) != body {
				t.Errorf("file only %q: file holds %q, %v", body, b, err)
			}
			s.Keep = keep
			s.Close()
			if _, err := os.Stat(name); keep != (err == nil) {
				t.Errorf("keep %v: after Close: %v", keep, err)
			}
		}
	}
}

// Body reads the whole body and leads back to its spool; other readers
// do not.
func TestSavedBody(t *testing.T) {
	s, err := New(strings.NewReader("hello"), 10, temp(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := s.Body()
	if b, _ := io.ReadAll(body); string(b) != "hello" || body.Close() != nil {
		t.Errorf("read %q", b)
	}
	if Saved(body) != s || Saved(strings.NewReader("x")) != nil || Saved(io.NopCloser(s.Reader())) != nil {
		t.Error("Saved finds the wrong spool")
	}
}

// A reader may still be made and read while the owner closes the spool:
// an include's proxy, retrying after its client left, reads the page's
// body as the page's request ends and closes it. The read fails; the
// spool's fields are not raced on.
func TestCloseWhileReading(t *testing.T) {
	s, err := New(strings.NewReader("hello world"), 5, temp(t))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.ReadAll(s.Body())
	}()
	s.Close()
	<-done
	s.Close() // a second Close does nothing
	if _, err := io.ReadAll(s.Reader()); err == nil {
		t.Error("a closed spool's file read without error")
	}
}
