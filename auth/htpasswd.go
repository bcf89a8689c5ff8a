// Package auth checks HTTP Basic credentials against htpasswd files as
// NGINX's ngx_http_auth_basic_module does, with every password hash NGINX
// accepts on a Linux system (see Match). The package imports nothing of
// the server: Basic is plain net/http middleware.
package auth

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/basicauth"
)

// Lookup returns the stored hash of user in data, an htpasswd file's
// content, reading it as NGINX does: lines end with LF; a line starting
// with "#" or CR, or an empty one, is skipped; the first line that starts
// with user and ":" decides, and its hash runs to the next ":", CR or LF
// (later fields, such as a comment, are ignored), or to its 2048th byte
// (maxHash). Nothing is trimmed: a
// line with a leading space names another user. NGINX's reader has one
// quirk, kept here so that a file means the same to both: a line that
// ends (LF) where it stops matching the user makes the next line be
// skipped too.
func Lookup(data []byte, user string) (hash string, ok bool) {
	l := lookup{want: user + ":"}
	l.feed(data)
	return l.result()
}

// lookup is Lookup's reader, fed a file in pieces: a file read as it
// streams needs no more memory than the hash it finds, as in NGINX,
// which reads the file in small chunks.
type lookup struct {
	want  string // what a matching line starts with: the user and ":"
	state int
	n     int    // bytes of want matched on this line
	hash  []byte // the hash read so far, in the passwd state
	done  bool   // the hash ended
}

// maxHash is the most of a password field that is read, as NGINX's
// buffer (NGX_HTTP_AUTH_BUF_SIZE) holds: a longer field is cut there, so
// that a file whose user's line does not end (a file that is no user
// file, named by a variable) costs a request no more than that.
const maxHash = 2048

const (
	lookupLogin = iota
	lookupPasswd
	lookupSkip
)

// feed reads the next bytes of the file. It returns true once the user's
// hash is complete; what follows is not read.
func (l *lookup) feed(data []byte) bool {
	for i := 0; i < len(data) && !l.done; i++ {
		c := data[i]
		switch l.state {
		case lookupLogin:
			if l.n == 0 {
				if c == '#' || c == '\r' {
					l.state = lookupSkip
					continue
				}
				if c == '\n' {
					continue
				}
			}
			if c != l.want[l.n] {
				l.state = lookupSkip
				continue
			}
			l.n++
			if l.n == len(l.want) {
				l.state = lookupPasswd
			}
		case lookupPasswd:
			if c == '\n' || c == '\r' || c == ':' {
				l.done = true
				break
			}
			end := i
			for end < len(data) && end-i < maxHash-len(l.hash) && data[end] != '\n' && data[end] != '\r' && data[end] != ':' {
				end++
			}
			l.hash = append(l.hash, data[i:end]...)
			i = end - 1
			if len(l.hash) == maxHash {
				// NGINX's buffer is full of the field: it stops reading
				// and takes what it holds as the hash.
				l.done = true
			}
		case lookupSkip:
			if c == '\n' {
				l.state, l.n = lookupLogin, 0
			}
		}
	}
	return l.done
}

// result is the hash found once the file was fed whole (or feed returned
// true): the file's end also ends the user's line.
func (l *lookup) result() (string, bool) {
	if l.state == lookupPasswd {
		return string(l.hash), true
	}
	return "", false
}

// lookupFile reads the file at path, in pieces, for user's hash.
func lookupFile(path, user string) (hash string, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	l := lookup{want: user + ":"}
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		if l.feed(buf[:n]) {
			break
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false, &fs.PathError{Op: "read", Path: path, Err: err}
		}
	}
	hash, ok = l.result()
	return hash, ok, nil
}

// Credentials reads a Basic Authorization header value as NGINX does:
// "Basic" (any case), one or more spaces, then base64 of "user:password"
// with a non-empty user. ok is false otherwise. vars' $remote_user reads
// it the same way, through the same internal package.
func Credentials(authorization string) (user, password string, ok bool) {
	return basicauth.Credentials(authorization)
}

// Files reads user files and keeps their content, reading a file again
// only when it changed (another inode, size or modification time), so
// that an edited or replaced htpasswd file takes effect on the next
// request, as in NGINX, which reads it for every request. The zero value
// is ready to use and safe for concurrent use.
type Files struct {
	m sync.Map // path -> *cachedFile
}

type cachedFile struct {
	mu   sync.Mutex
	info fs.FileInfo
	data []byte
}

// Read returns the content of the file at path.
func (fsys *Files) Read(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		fsys.m.Delete(path)
		return nil, err
	}
	v, _ := fsys.m.LoadOrStore(path, &cachedFile{})
	cf := v.(*cachedFile)
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if cf.info != nil && os.SameFile(cf.info, info) && cf.info.Size() == info.Size() && cf.info.ModTime().Equal(info.ModTime()) {
		return cf.data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		cf.info, cf.data = nil, nil
		return nil, err
	}
	cf.info, cf.data = info, data
	return data, nil
}

// Result is the outcome of a Basic check.
type Result uint8

const (
	// Granted: the user is in the file and the password matches.
	Granted Result = iota
	// NoCredentials: the request has no Basic credentials NGINX reads.
	NoCredentials
	// UnknownUser: no line of the file names the user.
	UnknownUser
	// Mismatch: the password does not match the user's hash.
	Mismatch
	// NoFile: the user file does not exist (NGINX answers 403).
	NoFile
	// FileError: the user file exists but cannot be read (500).
	FileError
)

// Check checks r's Basic credentials against the user file at path,
// read through files, or with files nil read as it streams and not kept
// (as NGINX reads it, in pieces, for every request). err says why for the results other than Granted,
// in the words of NGINX's error log.
func Check(r *http.Request, files *Files, path string) (Result, error) {
	user, password, ok := Credentials(r.Header.Get("Authorization"))
	if !ok {
		return NoCredentials, errors.New("no user/password was provided for basic authentication")
	}
	var hash string
	var found bool
	var err error
	if files != nil {
		var data []byte
		if data, err = files.Read(path); err == nil {
			hash, found = Lookup(data, user)
		}
	} else {
		hash, found, err = lookupFile(path, user)
	}
	if err != nil {
		// NGINX's words: open() "/etc/users" failed (2: No such file ...).
		why := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err
		}
		if errno, ok := why.(syscall.Errno); ok {
			err = fmt.Errorf("open() %q failed (%d: %w)", path, int(errno), errno)
		} else {
			err = fmt.Errorf("open() %q failed (%w)", path, why)
		}
		if errors.Is(why, fs.ErrNotExist) {
			return NoFile, err
		}
		return FileError, err
	}
	if !found {
		return UnknownUser, fmt.Errorf("user %q was not found in %q", user, path)
	}
	if !Match(password, hash) {
		if !Supported(cString(hash)) {
			return Mismatch, fmt.Errorf("user %q: password hash of an unsupported scheme in %q", user, path)
		}
		return Mismatch, fmt.Errorf("user %q: password mismatch", user)
	}
	return Granted, nil
}

// Challenge is the WWW-Authenticate value that asks for credentials of
// realm. As in NGINX, the realm goes in as it is, quotes included.
func Challenge(realm string) string { return `Basic realm="` + realm + `"` }

// Basic returns middleware that lets through the requests whose Basic
// credentials the user file at path accepts, and answers the others 401
// with a challenge for realm (403 when the file does not exist, 500 when
// it cannot be read, as NGINX does).
func Basic(realm, path string, next http.Handler) http.Handler {
	files := &Files{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, _ := Check(r, files, path)
		switch res {
		case Granted:
			next.ServeHTTP(w, r)
			return
		case NoFile:
			http.Error(w, "403 Forbidden", http.StatusForbidden)
		case FileError:
			http.Error(w, "500 Internal Server Error", http.StatusInternalServerError)
		default:
			w.Header().Set("WWW-Authenticate", Challenge(realm))
			http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
		}
	})
}
