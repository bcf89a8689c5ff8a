package server

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
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
	"alert":  slog.LevelError + 8,
	"emerg":  slog.LevelError + 12,
}

// LevelNotice is NGINX's "notice" level.
const LevelNotice = slog.LevelInfo + 2

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
// naming NGINX's levels (notice, crit, alert, emerg) as NGINX does.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
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
func (cfg *Config) openLogFile(path string) (*os.File, error) {
	if cfg.logFiles == nil {
		cfg.logFiles = map[string]*os.File{}
	}
	if f, ok := cfg.logFiles[path]; ok {
		return f, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open() %q failed (%w)", path, err)
	}
	cfg.logFiles[path] = f
	cfg.OnClose(f.Close)
	return f, nil
}

// OpenLogFile is openLogFile for modules (access_log).
func (cfg *Config) OpenLogFile(path string) (*os.File, error) { return cfg.openLogFile(path) }
