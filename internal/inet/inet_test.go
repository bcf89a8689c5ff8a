package inet

import "testing"

func TestParseCIDR(t *testing.T) {
	for _, c := range []struct {
		in, want string
		exact    bool
		bad      bool
	}{
		{in: "10.0.0.1", want: "10.0.0.1/32", exact: true},
		{in: "10.1.2.3/8", want: "10.0.0.0/8"},
		{in: "192.168.0.0/16", want: "192.168.0.0/16", exact: true},
		{in: "0.0.0.0/0", want: "0.0.0.0/0", exact: true},
		{in: "010.0.0.1", want: "10.0.0.1/32", exact: true}, // decimal, as NGINX
		{in: "10..1.2", want: "10.0.1.2/32", exact: true},
		{in: "2001:db8::/32", want: "2001:db8::/32", exact: true},
		{in: "2001:db8::1/32", want: "2001:db8::/32"},
		{in: "::ffff:1.2.3.4", want: "::ffff:1.2.3.4/128", exact: true},
		{in: "255.255.255.255", bad: true},
		{in: "256.0.0.1", bad: true},
		{in: "1.2.3", bad: true},
		{in: "1.2.3.4.5", bad: true},
		{in: "10.0.0.0/33", bad: true},
		{in: "10.0.0.0/", bad: true},
		{in: "10.0.0.0/-1", bad: true},
		{in: "::/129", bad: true},
		{in: "fe80::1%eth0", bad: true},
		{in: "example.com", bad: true},
		{in: "", bad: true},
	} {
		p, exact, err := ParseCIDR(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseCIDR(%q) = %v, want an error", c.in, p)
			}
			continue
		}
		if err != nil || p.String() != c.want || exact != c.exact {
			t.Errorf("ParseCIDR(%q) = %v %v %v, want %s %v", c.in, p, exact, err, c.want, c.exact)
		}
	}
}

// IPv6 addresses read as NGINX's ngx_inet6_addr reads them (the answers
// are NGINX 1.22.1's, through realip): an IPv4 tail with leading zeros or
// an empty number, a single leading ":" skipped.
func TestParseIPv6(t *testing.T) {
	for in, want := range map[string]string{
		"::ffff:010.1.2.3":    "::ffff:10.1.2.3",
		"::ffff:0100.1.2.3":   "::ffff:100.1.2.3",
		"::ffff:1..2.3":       "::ffff:1.0.2.3",
		"::010.1.2.3":         "::a01:203",
		"1:2:3:4:5:6:1.2.3.4": "1:2:3:4:5:6:102:304",
		":1:2:3:4:5:6:7:8":    "1:2:3:4:5:6:7:8",
		"::1:2:3:4:5:6:7":     "0:1:2:3:4:5:6:7",
		"ABCD::EF":            "abcd::ef",
		"1::":                 "1::",
		"::":                  "::",
		":::":                 "", "1:::2": "", "1::2::3": "", "::ffff:255.255.255.255": "", "::ffff:1.2.3": "",
		"1:2:3:4:5:6:7:1.2.3.4": "", "1.2.3.4::": "", "1:2:3:4:5:6:7::": "", "::1:2:3:4:5:6:7:8": "",
		"1:2:3:4:5:6:7:8:9": "", "12345::": "", "fe80::1%eth0": "", ":1": "", "1:": "", "2001:db8::0a.1.2.3": "", "": "",
	} {
		a, ok := ParseAddr(in)
		if got := a.String(); !ok && want != "" || ok && got != want {
			t.Errorf("ParseAddr(%q) = %s %v, want %q", in, got, ok, want)
		}
	}
	if p, _, err := ParseCIDR("::ffff:010.0.0.0/104"); err != nil || p.String() != "::ffff:10.0.0.0/104" {
		t.Errorf("ParseCIDR: %v %v", p, err)
	}
}
