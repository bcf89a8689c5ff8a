package cache

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// PurgeOptions configure PurgeHandler. At least one of Allow and Token
// must be set: an open purge endpoint lets anyone empty the cache.
type PurgeOptions struct {
	// Store is the zone to purge.
	Store Store
	// Allow lists the client networks that may purge, by the request's
	// RemoteAddr: the connection's address, or the client's that a
	// trusted proxy gave (mosaic's realip puts it there, as NGINX's
	// allow reads it); no field is read here. Empty allows any address
	// that presents the token.
	Allow []netip.Prefix
	// Token, when set, must be presented as "Authorization: Bearer TOKEN".
	Token string
	// Key computes the cache key of a url= parameter, as the location's
	// Options.Key does for requests; nil means the default key.
	Key func(r *http.Request) string
	// Logger records each purge; nil means slog.Default().
	Logger *slog.Logger
}

// PurgeHandler returns the admin endpoint that purges entries of a zone.
// It accepts POST, PURGE and DELETE with any of these query parameters,
// each repeatable:
//
//	key=KEY       the entry under the cache key KEY and its variants
//	url=URL       the entry a GET of URL would use (key computed by Key)
//	prefix=P      every entry whose key starts with P
//	tag=T         every entry tagged T (Surrogate-Key / Cache-Tag)
//	all=1         everything, by bumping the store's generation
//
// and answers 200 with {"purged": N} (N counts the entries removed; an
// all=1 purge reports the new "generation" instead), 400 for a request
// that names nothing, 401 or 403 when the caller is not allowed, 405 for
// other methods and 503 when the store fails.
func PurgeHandler(opts PurgeOptions) (http.Handler, error) {
	if opts.Store == nil {
		return nil, errors.New("cache: PurgeOptions.Store is required")
	}
	if len(opts.Allow) == 0 && opts.Token == "" {
		return nil, errors.New("cache: a purge endpoint needs Allow networks or a Token")
	}
	if opts.Key == nil {
		opts.Key = defaultKey
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &purger{opts}, nil
}

type purger struct{ PurgeOptions }

func (p *purger) allowed(w http.ResponseWriter, r *http.Request) bool {
	if len(p.Allow) > 0 {
		if !addrAllowed(r.RemoteAddr, p.Allow) {
			http.Error(w, "purge not allowed from this address", http.StatusForbidden)
			return false
		}
	}
	if p.Token != "" {
		got, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !found || subtle.ConstantTimeCompare([]byte(got), []byte(p.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cache purge"`)
			http.Error(w, "purge token required", http.StatusUnauthorized)
			return false
		}
	}
	return true
}

// addrAllowed reports whether the client address remote ("ip:port") lies
// in one of the networks.
func addrAllowed(remote string, allow []netip.Prefix) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, n := range allow {
		if n.Contains(addr) {
			return true
		}
	}
	return false
}

func (p *purger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost, "PURGE", http.MethodDelete:
	default:
		w.Header().Set("Allow", "POST, PURGE, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !p.allowed(w, r) {
		return
	}
	q := r.URL.Query()
	keys := q["key"]
	for _, u := range q["url"] {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, u, nil)
		if err != nil || req.URL.Host == "" {
			http.Error(w, fmt.Sprintf("invalid url %q", u), http.StatusBadRequest)
			return
		}
		keys = append(keys, p.Key(req))
	}
	prefixes, tags := q["prefix"], q["tag"]
	all := q.Has("all")
	if len(keys)+len(prefixes)+len(tags) == 0 && !all {
		http.Error(w, "name a key, url, prefix, tag or all", http.StatusBadRequest)
		return
	}

	ctx := r.Context()
	res := struct {
		Purged     int     `json:"purged"`
		Generation *uint64 `json:"generation,omitempty"`
	}{}
	err := func() error {
		for _, k := range keys {
			// Deleting the entry under the key removes a plain entry, or the
			// Vary marker that leads to all the variants.
			obj, err := p.Store.Get(ctx, k)
			if err == nil {
				obj.Close()
				res.Purged++
			}
			if err := p.Store.Delete(ctx, k); err != nil {
				return err
			}
		}
		for _, pre := range prefixes {
			n, err := p.Store.PurgePrefix(ctx, pre)
			res.Purged += n
			if err != nil {
				return err
			}
		}
		for _, t := range tags {
			n, err := p.Store.PurgeTag(ctx, t)
			res.Purged += n
			if err != nil {
				return err
			}
		}
		if all {
			g, err := p.Store.BumpGeneration(ctx)
			if err != nil {
				return err
			}
			res.Generation = &g
		}
		return nil
	}()
	if err != nil {
		p.Logger.Error("cache purge failed", "query", r.URL.RawQuery, "error", err)
		http.Error(w, "purge failed: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	p.Logger.Info("cache purge", "client", r.RemoteAddr, "query", r.URL.RawQuery, "purged", res.Purged)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}
