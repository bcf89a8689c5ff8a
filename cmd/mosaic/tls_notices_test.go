package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ssl_dhparam loads with a notice that says why it does nothing (Go's TLS
// has only ECDHE key exchange), as ssl_buffer_size's notice says why, and
// ssl_ciphers names the items it drops (the suites OpenSSL has and Go
// lacks, such as the DHE ones of Mozilla's intermediate list).
func TestSSLDhparamNoticeGivesReason(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mosaic.conf")
	writeFile(t, path, "http { ssl_dhparam /nonexistent/dh.pem; ssl_buffer_size 4k;\n"+
		"ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES128-GCM-SHA256:EDH+AESGCM:!DHE-RSA-AES256-SHA;\n"+
		"server { listen 127.0.0.1:1; } }\n")
	out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	if err != nil {
		t.Fatalf("-t: %v\n%s", err, out)
	}
	for _, want := range []string{
		`[notice] ignoring "ssl_dhparam" directive in ` + path + `:1: Go's TLS negotiates keys with ECDHE only`,
		`[notice] ignoring "ssl_buffer_size": Go's TLS stack sizes its records itself`,
		`[notice] ignoring DHE-RSA-AES128-GCM-SHA256, EDH+AESGCM in "ssl_ciphers": no cipher suite that Go implements matches`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("-t output lacks %q:\n%s", want, out)
		}
	}
}

// proxy_protocol towards an upstream is a directive of NGINX's stream
// module: NGINX's http refuses it as unknown, and so does mosaic.
func TestHTTPProxyProtocolRefusedAsNGINX(t *testing.T) {
	t.Parallel()
	const block = `server { listen 127.0.0.1:1; location / { proxy_pass http://127.0.0.1:2; proxy_protocol on; } }`
	dir := t.TempDir()
	mconf := filepath.Join(dir, "mosaic.conf")
	writeFile(t, mconf, "http { "+block+" }\n")
	out, err := exec.Command(checkPath, "-t", "-c", mconf).CombinedOutput()
	if want := `[emerg] unknown directive "proxy_protocol" in ` + mconf + `:1`; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("mosaic -t: %v, want %q in:\n%s", err, want, out)
	}
	nginx := nginxPath(t)
	nconf := filepath.Join(dir, "nginx.conf")
	writeFile(t, nconf, "pid "+dir+"/nginx.pid; error_log "+dir+"/error.log; events {}\nhttp { "+block+" }\n")
	nout, nerr := exec.Command(nginx, "-t", "-p", dir, "-c", nconf, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
	if nerr == nil || !strings.Contains(string(nout), `unknown directive "proxy_protocol"`) {
		t.Errorf("nginx -t: %v\n%s", nerr, nout)
	}
}

// The directives mosaic accepts and ignores stand only where NGINX allows
// them, with NGINX's number of arguments, and an on/off one with those
// values only: each configuration here is given to both, which must both
// refuse it with the same message and line, or both load it.
func TestIgnoredDirectivesCheckedAsNGINX(t *testing.T) {
	t.Parallel()
	nginx := nginxPath(t)
	const srv = "server { listen 127.0.0.1:1; "
	for _, c := range []struct{ conf, want string }{
		{"events {}\nread_ahead 0;", `"read_ahead" directive is not allowed here`},
		{"events { sendfile on; }", `"sendfile" directive is not allowed here`},
		{"events {}\nhttp { pcre_jit on; }", `"pcre_jit" directive is not allowed here`},
		{"events {}\nhttp { sendfile maybe; }", `invalid value "maybe" in "sendfile" directive, it must be "on" or "off"`},
		{"events {}\nhttp { sendfile_max_chunk 1q; }", `"sendfile_max_chunk" directive invalid value`},
		{"events {}\nhttp { server { location / { if ($arg_a) { sendfile_max_chunk 1k; } } } }", `"sendfile_max_chunk" directive is not allowed here`},
		{"events { multi_accept 1; }", `invalid value "1" in "multi_accept" directive, it must be "on" or "off"`},
		{"events {}\nhttp { tcp_nodelay; }", `invalid number of arguments in "tcp_nodelay" directive`},
		{"events {}\nuser a b c;", `invalid number of arguments in "user" directive`},
		{"events {}\nhttp { " + srv + "server_names_hash_bucket_size 64; } }", `"server_names_hash_bucket_size" directive is not allowed here`},
		{"events {}\nhttp { " + srv + "location / { ssl_dhparam x; } } }", `"ssl_dhparam" directive is not allowed here`},
		{"events {}\nhttp { " + srv + "location / { request_pool_size 4k; } } }", `"request_pool_size" directive is not allowed here`},
		{"events {}\nhttp { " + srv + "location / { if ($uri) { tcp_nopush on; } } } }", `"tcp_nopush" directive is not allowed here`},
		{"events {}\nhttp { " + srv + "location / { if ($uri) { sendfile on; } } } }", ""},
		// nginx -t creates a temporary path's directory: a relative one lies
		// under its -p prefix, checkBothT's temporary directory.
		{"events { worker_connections 64; use epoll; }\nworker_cpu_affinity auto; http { proxy_temp_path a 1 2; " + srv + "} }", ""},
	} {
		checkBothT(t, nginx, c.conf, c.want)
	}
}

// checkBothT gives the main-level text conf (after pid and error_log
// lines) to mosaic -t and nginx -t: both must load it when want is "",
// else both refuse it with the message want, naming the same line.
func checkBothT(t *testing.T, nginx, conf, want string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "test.conf")
	writeFile(t, path, "pid "+dir+"/nginx.pid;\nerror_log "+dir+"/error.log;\n"+conf+"\n")
	mout, merr := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	nout, nerr := exec.Command(nginx, "-t", "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log")).CombinedOutput()
	if want == "" {
		if merr != nil || nerr != nil {
			t.Errorf("%q: mosaic %v, nginx %v, want both to load:\n%s\n%s", conf, merr, nerr, mout, nout)
		}
		return
	}
	for who, out := range map[string][]byte{"mosaic": mout, "nginx": nout} {
		if !strings.Contains(string(out), "[emerg] "+want+" in "+path+":") {
			t.Errorf("%q: %s said\n%s\nwant %q", conf, who, out, want)
		}
	}
	if emergLine(mout) != emergLine(nout) {
		t.Errorf("%q: mosaic names %q, nginx %q", conf, emergLine(mout), emergLine(nout))
	}
}

// emergLine is the file:line an [emerg] message ends with.
func emergLine(out []byte) string {
	s := string(out)
	i := strings.Index(s, "[emerg] ")
	if i < 0 {
		return ""
	}
	s, _, _ = strings.Cut(s[i:], "\n")
	return s[strings.LastIndex(s, " in ")+4:]
}
