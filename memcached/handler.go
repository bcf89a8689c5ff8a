package memcached

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
)

// Handler answers GET and HEAD requests with values fetched from
// memcached, as a location with memcached_pass does: 200 with the value,
// 404 for a miss (or NotFound's answer, NGINX's "error_page 404 =
// @fallback"), 405 for another method, 500 for a request without a key,
// 502 when memcached cannot be reached or answers something else, 504
// when it does not answer in time.
type Handler struct {
	Client *Client
	// Key returns the key of r; nil means its path ("set $memcached_key
	// $uri").
	Key func(r *http.Request) string
	// ContentType returns the Content-Type of a hit; nil means the type
	// of the path's extension (mime.TypeByExtension), else
	// application/octet-stream, NGINX's default_type.
	ContentType func(r *http.Request) string
	// NotFound answers a miss; nil answers 404.
	NotFound http.Handler
	// Logger receives the failures; nil means slog.Default().
	Logger *slog.Logger
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	key := r.URL.Path
	if h.Key != nil {
		key = h.Key(r)
	}
	it, err := h.Client.Get(r.Context(), key)
	if err != nil {
		h.fail(w, r, key, err)
		return
	}
	defer it.Body.Close()
	hdr := w.Header()
	hdr.Set("Content-Length", strconv.FormatInt(it.Length, 10))
	hdr.Set("Content-Type", h.contentType(r))
	if it.Gzip {
		hdr.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return // the connection is closed: the value is not read
	}
	if _, err := io.Copy(w, it.Body); err != nil && r.Context().Err() == nil {
		h.logger().Error("memcached value cut short", "key", key, "error", err)
		// The client must not take a short body for the whole value.
		panic(http.ErrAbortHandler)
	}
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, key string, err error) {
	status := http.StatusBadGateway
	var ne net.Error
	switch {
	case errors.Is(err, ErrNotFound):
		h.logger().Info("key was not found by memcached", "key", key)
		if h.NotFound != nil {
			h.NotFound.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
		return
	case errors.Is(err, ErrNoKey):
		status = http.StatusInternalServerError
	case errors.As(err, &ne) && ne.Timeout():
		status = http.StatusGatewayTimeout
	}
	if r.Context().Err() != nil {
		return // the client has gone
	}
	h.logger().Error("memcached get failed", "key", key, "error", err)
	http.Error(w, http.StatusText(status), status)
}

func (h *Handler) contentType(r *http.Request) string {
	if h.ContentType != nil {
		return h.ContentType(r)
	}
	if t := mime.TypeByExtension(path.Ext(r.URL.Path)); t != "" {
		return t
	}
	return "application/octet-stream"
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}
