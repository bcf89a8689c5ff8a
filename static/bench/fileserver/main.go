// Command fileserver serves one directory with package static and nothing
// else: no access log, no filters. compare-nginx.sh runs it against NGINX.
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
	flag.Parse()
	h, err := handler(*root, *memory)
	if err != nil {
		slog.Error("fileserver", "error", err)
		os.Exit(1)
	}
	if err := http.ListenAndServe(*addr, h); err != nil {
		slog.Error("fileserver", "error", err)
		os.Exit(1)
	}
}

func handler(root, memory string) (http.Handler, error) {
	if memory == "" {
		return static.Handler(static.Options{Root: root})
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
