package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// echoBoth asks both servers for path and reports where the bodies (or
// statuses) differ.
func echoBoth(t *testing.T, mport, nport int, path string, extra string) {
	t.Helper()
	req := "GET " + path + " HTTP/1.1\r\nHost: a\r\n" + extra + "Connection: close\r\n\r\n"
	m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	if m.StatusCode != n.StatusCode || mb != nb {
		t.Errorf("%s %q: mosaic %d %q, nginx %d %q", path, extra, m.StatusCode, mb, n.StatusCode, nb)
	}
}

// geo and split_clients give every address and key the value NGINX's give
// it: networks by longest prefix (IPv4, IPv6, IPv4-mapped, deleted and
// duplicate ones, an address that is none), ranges cut around those added
// inside them, addresses read as NGINX's parser reads them, trusted
// proxies' X-Forwarded-For with and without
// proxy_recursive, and split_clients' MurmurHash2 shares.
func TestGeoAndSplitClientsAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`
			geo $arg_ip $net {
				default            dflt;
				10.0.0.0/8         ten;
				10.1.0.0/16        ten-one;
				10.1.2.0/24        ten-one-two;
				10.1.2.3           host;
				10.1.0.0/16        ten-one-again;
				192.168.0.0/16     lan;
				delete             192.168.0.0/16;
				172.16.0.0/12      private;
				255.255.255.255    none;
				2001:db8::/32      doc;
				2001:db8:1::/48    doc-one;
				::ffff:0:0/96      mapped-net;
			}
			geo $arg_ip $range {
				ranges;
				default                      out;
				10.0.0.0-10.0.255.255        a;
				10.0.0.10-10.0.0.20          b;
				10.0.0.0-10.0.0.5            c;
				10.0.0.250-10.0.255.255      d;
				10.2.255.0-10.3.0.255        e;
				10.5.0.0-10.5.0.9            f;
				delete                       10.5.0.0-10.5.0.9;
			}
			geo $client {
				default     far;
				proxy       127.0.0.1;
				proxy       10.0.0.0/8;
				127.0.0.1   self;
				10.9.9.9    inner;
				192.0.2.1   outer;
				2001:db8::7 six;
			}
			geo $rclient {
				default     far;
				proxy       127.0.0.1;
				proxy       10.0.0.0/8;
				proxy_recursive;
				127.0.0.1   self;
				10.9.9.9    inner;
				192.0.2.1   outer;
			}
			split_clients "${arg_k}AAA" $group {
				0.5%%   tiny;
				10%%    ten;
				33.33%% third;
				*       rest;
			}
			split_clients "$arg_k" $partial { 25%% quarter; 50%% half; }
			server { listen 127.0.0.1:%d;
				location /net { return 200 "$net|$range\n"; }
				location /client { return 200 "$client|$rclient\n"; }
				location /split { return 200 "$group|$partial\n"; }
			}`, port)
	})
	for _, ip := range []string{
		"10.2.3.4", "10.1.9.9", "10.1.2.9", "10.1.2.3", "10.1.255.255", "192.168.1.1", "172.20.1.1", "8.8.8.8",
		"255.255.255.255", "", "nonsense", "10.0.0.", "010.001.002.003", "2001:db8::1", "2001:db8:1::1",
		"2001:db9::1", "::1", "::ffff:10.1.2.3", "fe80::1%25eth0", "10.0.0.0", "10.0.0.5", "10.0.0.6",
		"10.0.0.9", "10.0.0.10", "10.0.0.15", "10.0.0.20", "10.0.0.21", "10.0.0.249", "10.0.0.250",
		"10.0.1.0", "10.2.255.255", "10.3.0.0", "10.3.0.255", "10.3.1.0", "10.5.0.5", "11.0.0.0",
		// IPv6 as NGINX's parser reads it: a decimal IPv4 tail, no "::"
		// for the eighth group.
		"::ffff:010.1.2.3", "1:2:3:4:5:6:7::", ":2001:db8::1",
	} {
		// As it is: $arg_ip is not unescaped, and "%3A" would make every
		// IPv6 address garbage.
		echoBoth(t, mport, nport, "/net?ip="+ip, "")
	}
	for _, xff := range []string{
		"", "192.0.2.1", "10.9.9.9", "192.0.2.1, 10.9.9.9", "192.0.2.1, 10.1.1.1", "bogus, 10.9.9.9",
		"10.9.9.9, 192.0.2.1", "2001:db8::7", "192.0.2.1,10.2.2.2, 10.3.3.3",
	} {
		extra := ""
		if xff != "" {
			extra = "X-Forwarded-For: " + xff + "\r\n"
		}
		echoBoth(t, mport, nport, "/client", extra)
	}
	echoBoth(t, mport, nport, "/client", "X-Forwarded-For: 10.9.9.9\r\nX-Forwarded-For: 192.0.2.1\r\n")
	for i := range 300 {
		echoBoth(t, mport, nport, fmt.Sprintf("/split?k=user%d", i), "")
	}
	echoBoth(t, mport, nport, "/split", "")
}

// A geo or split_clients block NGINX refuses is refused with its message
// and the line named.
func TestGeoAndSplitClientsErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, block := range []string{
		"geo $g {\n10.0.0.0/8 a;\nranges;\n}",
		"geo $g {\nranges;\n10.0.0.1 a;\n}",
		"geo $g {\nranges;\n10.0.0.9-10.0.0.1 a;\n}",
		"geo $g {\nranges;\n10.0.0.0-10.0.0.9 a;\n10.0.0.5-10.0.0.20 b;\n}",
		"geo $g {\n10.0.0.0/33 a;\n}",
		"geo $g {\n10.0.0.0/8 a b;\n}",
		"geo $g {\nproxy nowhere;\n}",
		"geo g {\n}",
		"geo $a g {\n}",
		"split_clients $arg_k $s {\n50% a;\n60% b;\n}",
		"split_clients $arg_k $s {\n50 a;\n}",
		"split_clients $arg_k $s {\n0% a;\n}",
		"split_clients $arg_k $s {\n1.234% a;\n}",
		"split_clients $arg_k $s {\n* a;\n1% b;\n}",
		"split_clients $arg_k s {\n}",
	} {
		mout, err, want := testBoth(t, dir, i, block)
		if strings.Contains(want, "percent total") {
			// NGINX names the line that closes the block, mosaic the
			// block's first.
			want = want[:strings.LastIndex(want, ":")]
		}
		if want == "" || err == nil || !strings.Contains(mout, want) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
}
