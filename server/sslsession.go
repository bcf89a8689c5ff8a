package server

import (
	"bytes"
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
)

// TLS session resumption. Go's server resumes by session tickets only (it
// keeps no cache of TLS 1.2 session IDs), so NGINX's settings map onto
// tickets:
//
//   - ssl_session_tickets on (the default): tickets hold the session,
//     encrypted with the server's keys: those of ssl_session_ticket_key,
//     or random ones made when the configuration loads (as NGINX makes
//     them, so a reload forgets every ticket).
//   - ssl_session_tickets off with an ssl_session_cache (builtin or
//     shared): the session stays in mosaic's memory and the ticket is a
//     random identifier of it, as OpenSSL's stateful TLS 1.3 tickets are.
//   - ssl_session_tickets off without a cache (off or none): no session
//     is resumed.
//
// ssl_session_timeout bounds every resumption: a session older than it is
// not resumed (the time is written inside the encrypted ticket, or kept
// with the cached session).

// sessionMarker opens the Extra entry that carries a session's creation
// time, so that entries other code might add are told apart.
var sessionMarker = []byte("mosaic-session-created:")

// sessionCacheConf is ssl_session_cache.
type sessionCacheConf struct {
	off     bool // off or none
	builtin int  // sessions, 0 = none
	shared  string
	size    int64 // of the shared zone, in bytes
	at      *conf.Directive
}

func setSessionCache(c *Cmd) error {
	sl := c.Loc().(*sslLoc)
	var sc sessionCacheConf
	sc.at = c.Directive
	for _, a := range c.Args {
		switch {
		case a == "off" || a == "none":
			sc.off = true
		case a == "builtin":
			sc.builtin = 20480
		case strings.HasPrefix(a, "builtin:"):
			n, err := c.Int(a[len("builtin:"):], 1, 1<<30)
			if err != nil {
				return c.Errorf("invalid session cache %q", a)
			}
			sc.builtin = n
		case strings.HasPrefix(a, "shared:"):
			name, size, ok := strings.Cut(a[len("shared:"):], ":")
			if !ok || name == "" {
				return c.Errorf("invalid zone size %q", a)
			}
			n, err := ParseSize(size)
			if err != nil || n == 0 {
				return c.Errorf("invalid zone size %q", a)
			}
			if n < 8*4096 {
				return c.Errorf("session cache %q is too small", a)
			}
			sc.shared, sc.size = name, n
		default:
			return c.Errorf("invalid session cache %q", a)
		}
	}
	if sc.off && len(c.Args) > 1 {
		return c.Errorf("invalid session cache %q", strings.Join(c.Args, " "))
	}
	return Put(c, &sl.sessionCache, sc)
}

// ticketKeyFile reads one ssl_session_ticket_key file: 48 or 80 bytes, as
// NGINX's. Go's tickets are not NGINX's format, so the file's bytes are
// hashed into Go's 32-byte key: servers sharing a file (a fleet of
// mosaic) share tickets, while tickets of NGINX itself do not resume here.
func ticketKeyFile(d *conf.Directive, path string) ([32]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}, conf.Errorf(d, "open() %q failed: %v", path, err)
	}
	if len(b) != 48 && len(b) != 80 {
		return [32]byte{}, conf.Errorf(d, "%q must be 80 or 48 bytes", path)
	}
	return sha256.Sum256(b), nil
}

// sessionStore keeps sessions in memory for stateful tickets: a bounded
// cache, oldest first out, as NGINX's cache drops its oldest sessions when
// it is full. A shared zone is one store for every server naming it.
type sessionStore struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *storedSession, oldest at the front
	byID  map[string]*list.Element
}

type storedSession struct {
	id      string
	owner   string // the server that made it: another must not resume it
	state   []byte
	created time.Time
}

func newSessionStore(max int) *sessionStore {
	return &sessionStore{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

func (s *sessionStore) put(e *storedSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.order.Len() >= s.max {
		old := s.order.Remove(s.order.Front()).(*storedSession)
		delete(s.byID, old.id)
	}
	s.byID[e.id] = s.order.PushBack(e)
}

func (s *sessionStore) get(id string) *storedSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[id]; ok {
		return el.Value.(*storedSession)
	}
	return nil
}

// sharedSessionStores holds the shared zones by name across reloads, as
// NGINX's shared memory outlives a reload when its name and size stay.
var sharedSessionStores = struct {
	sync.Mutex
	m map[string]*sessionStore
}{m: map[string]*sessionStore{}}

// sessionsPerMB is NGINX's figure: one megabyte holds about 4000 sessions.
const sessionsPerMB = 4000

func sharedStore(name string, size int64) *sessionStore {
	max := int(size * sessionsPerMB >> 20)
	sharedSessionStores.Lock()
	defer sharedSessionStores.Unlock()
	s := sharedSessionStores.m[name]
	if s == nil || s.max != max {
		s = newSessionStore(max)
		sharedSessionStores.m[name] = s
	}
	return s
}

// sessionHooks are a server's WrapSession and UnwrapSession, which pass
// the creation time of the session between them: Go always re-issues a
// resumed TLS 1.2 session in a new ticket that it builds afresh, and that
// ticket must keep the age of the session it carries, as OpenSSL keeps a
// resumed session's time, or resuming it within ssl_session_timeout
// would keep it alive for good. A TLS 1.3 ticket is a new session, which
// OpenSSL times anew too.
type sessionHooks struct {
	wrap   func(cs tls.ConnectionState, ss *tls.SessionState, created time.Time) ([]byte, error)
	unwrap func(ticket []byte, cs tls.ConnectionState) (ss *tls.SessionState, created time.Time, err error)
}

// install gives tc, a connection's own configuration, the hooks, with the
// time of the session the connection resumed kept between them.
func (h *sessionHooks) install(tc *tls.Config) {
	var resumed time.Time
	tc.UnwrapSession = func(ticket []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
		ss, created, err := h.unwrap(ticket, cs)
		if ss != nil {
			resumed = created
		}
		return ss, err
	}
	tc.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		created := time.Now()
		if cs.DidResume && cs.Version < tls.VersionTLS13 && !resumed.IsZero() {
			created = resumed
		}
		return h.wrap(cs, ss, created)
	}
}

// setupSessions applies the session settings of a server to its TLS
// configuration and returns the hooks that each connection's copy of it
// takes (nil when no session is resumed). owner names the server's
// certificates, so that a session is resumed only by a server with the
// same ones, as NGINX's session id context keeps sessions apart.
func setupSessions(tc *tls.Config, sl *sslLoc, owner string) (*sessionHooks, error) {
	var keys [][32]byte
	for i, f := range sl.ticketKeys.V.files {
		k, err := ticketKeyFile(sl.ticketKeys.V.dirs[i], f)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		var k [32]byte
		if _, err := rand.Read(k[:]); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	tc.SetSessionTicketKeys(keys) // the first encrypts, all decrypt
	timeout := sl.sessionTimeout.V
	sc := sl.sessionCache.V
	if sl.sessionTickets.V {
		return &sessionHooks{
			wrap: func(cs tls.ConnectionState, ss *tls.SessionState, created time.Time) ([]byte, error) {
				stampSession(ss, owner, created)
				return tc.EncryptTicket(cs, ss)
			},
			unwrap: func(ticket []byte, cs tls.ConnectionState) (*tls.SessionState, time.Time, error) {
				ss, err := tc.DecryptTicket(ticket, cs)
				if err != nil || ss == nil {
					return nil, time.Time{}, err
				}
				if created, ok := sessionStamp(ss, owner); ok && time.Since(created) <= timeout {
					return ss, created, nil
				}
				return nil, time.Time{}, nil // a full handshake
			},
		}, nil
	}
	var store *sessionStore
	switch {
	case sc.shared != "":
		store = sharedStore(sc.shared, sc.size)
	case sc.builtin > 0:
		store = newSessionStore(sc.builtin)
	default:
		tc.SessionTicketsDisabled = true
		return nil, nil
	}
	return &sessionHooks{
		wrap: func(_ tls.ConnectionState, ss *tls.SessionState, created time.Time) ([]byte, error) {
			b, err := ss.Bytes()
			if err != nil {
				return nil, err
			}
			id := make([]byte, 32)
			if _, err := rand.Read(id); err != nil {
				return nil, err
			}
			store.put(&storedSession{id: string(id), owner: owner, state: b, created: created})
			return id, nil
		},
		unwrap: func(ticket []byte, _ tls.ConnectionState) (*tls.SessionState, time.Time, error) {
			e := store.get(string(ticket))
			if e == nil || e.owner != owner || time.Since(e.created) > timeout {
				return nil, time.Time{}, nil
			}
			ss, err := tls.ParseSessionState(e.state)
			return ss, e.created, err
		},
	}, nil
}

// stampSession records when a session was made, and for which server,
// inside the state that the ticket encrypts.
func stampSession(ss *tls.SessionState, owner string, created time.Time) {
	b := append([]byte(nil), sessionMarker...)
	b = binary.BigEndian.AppendUint64(b, uint64(created.UnixNano()))
	b = append(b, owner...)
	ss.Extra = append(ss.Extra, b)
}

func sessionStamp(ss *tls.SessionState, owner string) (time.Time, bool) {
	for _, e := range ss.Extra {
		if rest, ok := bytes.CutPrefix(e, sessionMarker); ok && len(rest) >= 8 {
			if string(rest[8:]) != owner {
				return time.Time{}, false
			}
			return time.Unix(0, int64(binary.BigEndian.Uint64(rest))), true
		}
	}
	return time.Time{}, false
}

// certsOwner names a set of certificates for stampSession.
func certsOwner(certs []tls.Certificate) string {
	h := sha256.New()
	for _, c := range certs {
		if len(c.Certificate) > 0 {
			h.Write(c.Certificate[0])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}
