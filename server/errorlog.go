package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// logLevels maps NGINX's error_log levels onto slog's. NGINX's notice
// sits between info and warn; crit, alert and emerg are all above error.
var logLevels = map[string]slog.Level{
	"debug":  slog.LevelDebug,
	"info":   slog.LevelInfo,
	"notice": slog.LevelInfo + 2,
	"warn":   slog.LevelWarn,
	"error":  slog.LevelError,
	"crit":   slog.LevelError + 4,
	"alert":  LevelAlert,
	"emerg":  slog.LevelError + 12,
}

// LevelNotice is NGINX's "notice" level.
const LevelNotice = slog.LevelInfo + 2

// LevelAlert is NGINX's "alert" level.
const LevelAlert = slog.LevelError + 8

// openErrorLog builds the logger for "error_log file [level]". "stderr"
// writes to the standard error; files are opened for appending and
// shared between the directives that name them.
func openErrorLog(cfg *Config, args []string) (*slog.Logger, error) {
	level := slog.LevelError
	if len(args) == 2 {
		l, ok := logLevels[args[1]]
		if !ok {
			return nil, fmt.Errorf("invalid log level %q", args[1])
		}
		level = l
	}
	var w io.Writer
	switch path := args[0]; {
	case path == "stderr":
		w = os.Stderr
	case strings.HasPrefix(path, "syslog:") || strings.HasPrefix(path, "memory:"):
		return nil, fmt.Errorf("error_log target %q is not supported, use a file or stderr", path)
	default:
		f, err := cfg.openLogFile(path)
		if err != nil {
			return nil, err
		}
		w = f
	}
	return NewLogger(w, level), nil
}

// NewLogger returns an error logger writing text lines at level and above,
// naming NGINX's levels (notice, crit, alert, emerg) as NGINX does. Each
// line is cut at MaxLogLine bytes (boundedLines).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(boundedLines{w}, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.LevelKey && len(groups) == 0 {
				if l, ok := a.Value.Any().(slog.Level); ok {
					a.Value = slog.StringValue(levelName(l))
				}
			}
			return a
		},
	}))
}

// MaxLogLine is the longest error-log line, newline included: NGINX's
// NGX_MAX_ERROR_STR. Lines quote what clients send (a URI in a path, a
// header value, a pattern built from arguments and its subject) and
// what upstreams answer; without a bound one 64 KB URI wrote 64 KB to
// the log for each request.
const MaxLogLine = 2048

// cutMark ends a line that boundedLines cut, so that a reader knows the
// text (and any quoted value in it) goes on past it. NGINX cuts silently.
const cutMark = "...[cut]\n"

// boundedLines cuts every line written through it at MaxLogLine bytes,
// at a UTF-8 boundary, ending it with cutMark. slog's handlers write a
// record as one Write, so a Write is a line.
type boundedLines struct{ w io.Writer }

func (b boundedLines) Write(p []byte) (int, error) {
	if len(p) <= MaxLogLine {
		return b.w.Write(p)
	}
	n := MaxLogLine - len(cutMark)
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	line := make([]byte, 0, n+len(cutMark))
	line = append(append(line, p[:n]...), cutMark...)
	if _, err := b.w.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

func levelName(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < LevelNotice:
		return "info"
	case l < slog.LevelWarn:
		return "notice"
	case l < slog.LevelError:
		return "warn"
	case l < slog.LevelError+4:
		return "error"
	case l < slog.LevelError+8:
		return "crit"
	case l < slog.LevelError+12:
		return "alert"
	}
	return "emerg"
}

// openLogFile opens a log file once per configuration; the file is closed
// when the configuration is retired.
func (cfg *Config) openLogFile(path string) (*logFile, error) {
	if cfg.logFiles == nil {
		cfg.logFiles = map[string]*logFile{}
	}
	if f, ok := cfg.logFiles[path]; ok {
		return f, nil
	}
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	lf := &logFile{path: path, f: f}
	cfg.logFiles[path] = lf
	cfg.OnClose(lf.close)
	return lf, nil
}

// OpenLogFile is openLogFile for modules (access_log): the writer goes
// on into the file a reopen (ReopenLogs) puts at its path.
func (cfg *Config) OpenLogFile(path string) (io.Writer, error) { return cfg.openLogFile(path) }

// OnReopen registers f to run before ReopenLogs opens the files again: a
// module that buffers lines (access_log buffer=) flushes them there, so
// that they go into the file they were written for, as NGINX does.
func (cfg *Config) OnReopen(f func() error) { cfg.reopeners = append(cfg.reopeners, f) }

// ReopenLogs opens every log file of the configuration again at its
// path, as NGINX does on SIGUSR1: once logrotate has renamed a file, the
// lines go on into a new one there, not into the renamed file. Lines
// written meanwhile land in one or the other, none is lost. A file that
// cannot be opened keeps its old one, and the error says which.
func (cfg *Config) ReopenLogs() error {
	var errs []error
	for _, f := range cfg.reopeners {
		if err := f(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, lf := range cfg.logFiles {
		if err := lf.reopen(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// logFile is a log file that ReopenLogs can swap for a new one at the
// same path. Writes hold mu shared, so that a reopen closes the old file
// only once no write to it is under way.
type logFile struct {
	path string
	mu   sync.RWMutex
	f    *os.File
}

func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open() %q failed (%w)", path, err)
	}
	return f, nil
}

func (lf *logFile) Write(p []byte) (int, error) {
	lf.mu.RLock()
	defer lf.mu.RUnlock()
	return lf.f.Write(p)
}

func (lf *logFile) reopen() error {
	f, err := openAppend(lf.path)
	if err != nil {
		return err
	}
	lf.mu.Lock()
	old := lf.f
	lf.f = f
	lf.mu.Unlock()
	return old.Close()
}

func (lf *logFile) close() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.f.Close()
}
