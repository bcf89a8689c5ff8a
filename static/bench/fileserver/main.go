// Command fileserver serves one directory with package static and nothing
// else: no access log, no filters. With -open-file-cache N it keeps up to N
// files open, as "open_file_cache max=N" does.
//
// With -memory FILE it instead answers every request with FILE's bytes,
// held in memory and written by plain net/http: the floor that net/http
// itself sets, against which the cost of serving from the file system shows.
package main

import (
	"flag"
	"log/slog"
	"net/http"
	"os"
	"strconv"

	"github.com/mosaic-edge/mosaic/static"
)

func main() {
	root := flag.String("root", ".", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	memory := flag.String("memory", "", "serve this file's bytes from memory for every request")
	cache := flag.Int("open-file-cache", 0, "keep up to this many files open (open_file_cache max=N)")
	flag.Parse()
	h, err := handler(*root, *memory, *cache)
	if err != nil {
		slog.Error("fileserver", "error", err)
		os.Exit(1)
	}
	if err := http.ListenAndServe(*addr, h); err != nil {
		slog.Error("fileserver", "error", err)
		os.Exit(1)
	}
}

func handler(root, memory string, cache int) (http.Handler, error) {
	if memory == "" {
		opts := static.Options{Root: root}
		if cache > 0 {
			opts.OpenFileCache = static.NewOpenFileCache(cache, 0)
		}
		return static.New(opts)
	}
	body, err := os.ReadFile(memory)
	if err != nil {
		return nil, err
	}
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"application/octet-stream"}
		h["Content-Length"] = []string{length}
		w.Write(body)
	}), nil
}
