package guard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestCheckURLRefusesEverySpelling(t *testing.T) {
	g := &URLGuard{}
	for _, raw := range []string{
		"http://127.0.0.1/",
		"http://127.0.0.1:8080/x",
		"http://127.1/",
		"http://2130706433/",
		"http://0x7f000001/",
		"http://0x7f.0.0.1/",
		"http://0177.0.0.1/",
		"http://017700000001/",
		"http://[::1]/",
		"http://[0:0:0:0:0:0:0:1]/",
		"http://[::ffff:127.0.0.1]/",
		"http://[::ffff:7f00:1]/",
		"http://[::ffff:169.254.169.254]/",
		"http://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
		"http://[2002:7f00:1::]/",      // 6to4 of 127.0.0.1
		"http://[fd00::1]/",
		"http://[fe80::1%25eth0]/",
		"http://[ff02::1]/",
		"http://[::]/",
		"http://0.0.0.0/",
		"http://0/",
		"http://10.1.2.3/",
		"http://172.16.0.1/",
		"http://192.168.0.1/",
		"http://100.64.1.1/",
		"http://169.254.169.254/latest/meta-data/",
		"http://224.0.0.1/",
		"http://240.0.0.1/",
		"http://255.255.255.255/",
		"http://198.18.0.1/",
		"http://localhost/",
		"http://LOCALHOST./",
		"http://api.localhost/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"http://metadata.google.internal./",
		"http://user:secret@127.0.0.1/",
		"file:///etc/passwd",
		"ftp://example.com/",
		"gopher://example.com/",
		"http:///nohost",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("parse %q: %v", raw, err)
			continue
		}
		err = g.CheckURL(u)
		if !errors.Is(err, ErrURLDenied) {
			t.Errorf("CheckURL(%q) = %v, want ErrURLDenied", raw, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckURL(%q) leaks the password: %v", raw, err)
		}
	}
}

func TestCheckURLAllowsPublicAndAllowListed(t *testing.T) {
	g := &URLGuard{Allow: []string{"127.0.0.1:5173", "dev.localhost"}}
	for _, raw := range []string{
		"https://example.com/",
		"http://93.184.216.34/",
		"https://[2606:2800:220:1:248:1893:25c8:1946]/",
		"http://127.0.0.1:5173/app",
		"http://dev.localhost:9999/",
		"https://go.dev/doc/",
	} {
		u, _ := url.Parse(raw)
		if err := g.CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", raw, err)
		}
	}
	u, _ := url.Parse("http://127.0.0.1:5174/")
	if err := g.CheckURL(u); err == nil {
		t.Errorf("CheckURL(%q) = nil: the allow-list names another port", u)
	}
}

func TestHostAddrForms(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433":     "127.0.0.1",
		"0x7f000001":     "127.0.0.1",
		"0177.0.0.1":     "127.0.0.1",
		"127.1":          "127.0.0.1",
		"127.0.1":        "127.0.0.1",
		"10.0x10.1":      "10.16.0.1",
		"[::1]":          "::1",
		"fe80::1%eth0":   "fe80::1",
		"8.8.8.8.":       "8.8.8.8",
		"0xa9.0xfe.0xa9": "169.254.0.169",
	} {
		got, ok := HostAddr(in)
		if !ok || got != netip.MustParseAddr(want) {
			t.Errorf("HostAddr(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"example.com", "256.1.1.1", "1.2.3.4.5", "08.1.1.1", "1.2.3.999"} {
		if got, ok := HostAddr(in); ok {
			t.Errorf("HostAddr(%q) = %v, want not an address", in, got)
		}
	}
}

// fakeLookup resolves names from a table, as a hostile DNS server would.
func fakeLookup(table map[string][]string) func(context.Context, string, string) ([]netip.Addr, error) {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		addrs, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestDialRefusesNamesResolvingInward(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	g := &URLGuard{LookupIP: fakeLookup(map[string][]string{
		"evil.test":    {"127.0.0.1"},
		"rebind.test":  {"93.184.216.34", "127.0.0.1"},
		"mapped.test":  {"::ffff:127.0.0.1"},
		"meta.test":    {"169.254.169.254"},
		"private.test": {"10.0.0.1"},
	})}
	for _, host := range []string{"evil.test", "rebind.test", "mapped.test", "meta.test", "private.test", "127.0.0.1", "localhost", "[::1]", "2130706433"} {
		c, err := g.DialContext(t.Context(), "tcp", net.JoinHostPort(strings.Trim(host, "[]"), port))
		if err == nil {
			c.Close()
			t.Errorf("DialContext(%s) connected to the loopback test server", host)
			continue
		}
		if !errors.Is(err, ErrURLDenied) {
			t.Errorf("DialContext(%s) = %v, want ErrURLDenied", host, err)
		}
	}
}

func TestDialAllowListReachesLocalServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	g := &URLGuard{Allow: []string{srv.Listener.Addr().String()}}
	c, err := g.DialContext(t.Context(), "tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("DialContext to the allow-listed test server: %v", err)
	}
	c.Close()
}

func TestControlHookChecksPeerAddress(t *testing.T) {
	for addr, bad := range map[string]bool{
		"127.0.0.1:80":         true,
		"[::1]:443":            true,
		"[::ffff:10.0.0.1]:80": true,
		"169.254.169.254:80":   true,
		"93.184.216.34:443":    false,
	} {
		err := controlPublic("tcp4", addr, nil)
		if (err != nil) != bad {
			t.Errorf("controlPublic(%s) = %v, want blocked=%v", addr, err, bad)
		}
	}
}
