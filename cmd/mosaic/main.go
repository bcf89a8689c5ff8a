// Command mosaic is an HTTP edge server configured in NGINX syntax.
//
//	mosaic [-c FILE] [-t] [-v] [-s stop|quit|reopen|reload]
//
// Without -c it reads ./mosaic.conf; when that does not exist either, it
// serves the current directory on 127.0.0.1:8080. With -s it sends the
// signal to the mosaic whose ID the configuration's pid file holds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/server"

	// Every module of the binary: each registers its directives with the server.
	_ "github.com/mosaic-edge/mosaic/modules/all"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fl := flag.NewFlagSet("mosaic", flag.ContinueOnError)
	file := fl.String("c", "", "configuration `file` (default ./mosaic.conf)")
	test := fl.Bool("t", false, "test the configuration and exit")
	showVersion := fl.Bool("v", false, "print the version and exit")
	send := fl.String("s", "", "send `signal` to the running mosaic (its pid file's): stop, quit, reopen, reload")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	// Before the configuration loads: its parse is the first heap to grow.
	gcDefault := applyGCPolicy(os.Getenv)
	if *showVersion {
		fmt.Println("mosaic version " + version)
		return 0
	}
	if _, ok := signals[*send]; *send != "" && !ok {
		fmt.Fprintf(os.Stderr, "mosaic: invalid option: \"-s %s\"\n", *send)
		return 2
	}
	sigs := make(chan os.Signal, 4)
	if !*test && *send == "" {
		// First of all: a reload or reopen that comes while the
		// configuration loads or the sockets open waits here for the loop
		// below. Without this, Go's default for SIGHUP ends the process,
		// and a reload sent as soon as the port answered killed mosaic.
		// The stop signals are taken only once mosaic runs: until then
		// their default (exit) is what a stop asks for.
		signal.Notify(sigs, syscall.SIGHUP, syscall.SIGUSR1)
	}
	log := server.NewLogger(os.Stderr, slog.LevelInfo)

	path, src, err := locateConfig(*file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mosaic: %v\n", err)
		return 1
	}
	load := func() (*server.Config, error) {
		if src != "" {
			return server.LoadString(path, src)
		}
		return server.Load(path)
	}
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mosaic: [emerg] %v\n", err)
		if *test {
			fmt.Fprintf(os.Stderr, "mosaic: configuration file %s test failed\n", path)
		}
		return 1
	}
	if *test {
		defer cfg.Close()
		for _, n := range cfg.Notices() {
			fmt.Fprintf(os.Stderr, "mosaic: [notice] %s\n", n)
		}
		fmt.Fprintf(os.Stderr, "mosaic: the configuration file %s syntax is ok\n", path)
		fmt.Fprintf(os.Stderr, "mosaic: configuration file %s test is successful\n", path)
		return 0
	}
	if *send != "" {
		err := sendSignal(cfg.PidFile, *send)
		cfg.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mosaic: [error] %v\n", err)
			return 1
		}
		return 0
	}
	if src != "" {
		log.Info("no configuration file: serving the current directory on http://127.0.0.1:8080/")
	}

	rt := server.NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		cfg.Close()
		fmt.Fprintf(os.Stderr, "mosaic: [emerg] %v\n", err)
		return 1
	}
	// Written once the sockets are open, as NGINX does: a start that
	// fails to bind leaves the file of a mosaic already running alone.
	pidFile := cfg.PidFile
	if pidFile != "" {
		if err := writePid(pidFile); err != nil {
			fmt.Fprintf(os.Stderr, "mosaic: [emerg] %v\n", err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = rt.Shutdown(ctx)
			cancel()
			return 1
		}
	}
	defer func() {
		if err := removePid(pidFile); err != nil {
			log.Error(err.Error())
		}
	}()
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGINT)
	gogc, memLimit := gcSettings()
	gcFrom := "environment"
	if gcDefault {
		gcFrom = "adaptive" // mosaic's: gogc is the target now, which follows the live heap
	}
	log.Info("mosaic started", "config", path, "pid", os.Getpid(), "version", version, "gomaxprocs", runtime.GOMAXPROCS(0),
		"gogc", gogc, "gomemlimit", memLimit, "gc_policy", gcFrom)

	for {
		select {
		case err := <-rt.Errors():
			log.Error("listener failed", "err", err)
		case sig := <-sigs:
			switch sig {
			case syscall.SIGHUP:
				next, err := load()
				if err == nil {
					if err = rt.Apply(next); err != nil {
						next.Close()
					}
				}
				if err != nil {
					log.Error("reload failed, the previous configuration keeps serving", "err", err)
					continue
				}
				pidFile = movePid(log, pidFile, next.PidFile)
				log.Info("configuration reloaded", "config", path)
				continue
			case syscall.SIGUSR1:
				// The notice goes where NGINX writes it: into the error
				// log before the reopen, the renamed file.
				cur := rt.Config()
				cur.Logger.Log(context.Background(), server.LevelNotice, "reopening logs")
				if err := cur.ReopenLogs(); err != nil {
					cur.Logger.Error("reopening logs failed, the files that failed keep their old ones", "err", err)
				}
				continue
			}
			limit := rt.Config().ShutdownTimeout()
			log.Info("shutting down gracefully", "signal", sig.String(), "timeout", limit)
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			err := rt.Shutdown(ctx)
			cancel()
			if err != nil {
				log.Warn("requests still running at the end of the shutdown timeout were cut", "err", err)
			}
			return 0
		}
	}
}

// movePid writes the pid file of a reloaded configuration where it names
// another than was, and removes was's; it returns the file in use. One
// that cannot be written leaves the old in place, with an error logged.
func movePid(log *slog.Logger, was, now string) string {
	if now == was {
		return was
	}
	if now != "" {
		if err := writePid(now); err != nil {
			log.Error(err.Error() + "; the old pid file stays")
			return was
		}
	}
	if err := removePid(was); err != nil {
		log.Error(err.Error())
	}
	return now
}

// locateConfig returns the file to read, or the built-in configuration
// text (serve the working directory) when no file was named and
// ./mosaic.conf does not exist.
func locateConfig(file string) (path, src string, err error) {
	if file != "" {
		return file, "", nil
	}
	if _, err := os.Stat("mosaic.conf"); err == nil {
		return "mosaic.conf", "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(wd, "(built-in)"), builtinConfig(wd), nil
}

func builtinConfig(dir string) string {
	return `http {
    server {
        listen 127.0.0.1:8080;
        root ` + strconv.Quote(dir) + `;
        index index.html;
        access_log stderr;
    }
}
`
}
