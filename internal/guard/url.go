package guard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrURLDenied is wrapped by every refusal of the URL guard.
var ErrURLDenied = errors.New("URL refused")

// URLGuard keeps web requests on the public internet. Hosts are judged
// twice: as written (CheckURL, every spelling of an address), and as
// resolved at connect time (DialContext), so a name that resolves to an
// internal address, a DNS rebinding or a redirect inward fails too.
type URLGuard struct {
	// Allow opens specific hosts deliberately: "host" or "host:port"
	// (e.g. "127.0.0.1:5173" for a local dev server). Names compare
	// after NormalizeHost; an allowed host skips the address checks.
	Allow []string
	// LookupIP resolves names; nil means net.DefaultResolver. Tests
	// install a fake to point names at internal addresses.
	LookupIP func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// allowed reports whether host (and port) is on the allow-list.
func (g *URLGuard) allowed(host, port string) bool {
	h := NormalizeHost(host)
	for _, a := range g.Allow {
		ah, ap, err := net.SplitHostPort(a)
		if err != nil {
			ah, ap = a, ""
		}
		if NormalizeHost(ah) != h {
			continue
		}
		if ap == "" || ap == port {
			return true
		}
	}
	return false
}

// CheckURL admits an http or https URL whose host, as written, is
// public or allowed. It does not resolve names.
func (g *URLGuard) CheckURL(u *url.URL) error {
	switch u.Scheme {
	case "http", "https":
	default:
		return fmt.Errorf("%w: %q: only http and https are allowed", ErrURLDenied, redact(u))
	}
	if u.Host == "" {
		return fmt.Errorf("%w: %q has no host", ErrURLDenied, redact(u))
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if g.allowed(u.Hostname(), port) {
		return nil
	}
	if r, bad := BlockedHost(u.Hostname()); bad {
		return fmt.Errorf("%w: %q: host %s is %s; add it to the web allow-list to open it deliberately", ErrURLDenied, redact(u), u.Hostname(), r)
	}
	return nil
}

// redact drops user info so credentials in a URL never reach the log
// or the model.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// DialContext connects to addr (host:port) only if it is allowed or
// every address it resolves to is public. It dials the checked address
// itself, never the name again, and a Control hook rechecks the socket
// address at connect time as a last line.
func (g *URLGuard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: bad address %q: %v", ErrURLDenied, addr, err)
	}
	if g.allowed(host, port) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	if r, bad := BlockedHost(host); bad {
		return nil, fmt.Errorf("%w: %s is %s", ErrURLDenied, host, r)
	}
	var ips []netip.Addr
	if ip, ok := HostAddr(host); ok {
		ips = []netip.Addr{ip}
	} else {
		ips, err = g.lookup(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	// Every address must be public: a name with one internal address is
	// a rebinding attempt, not a choice between them.
	for _, ip := range ips {
		if r, bad := BlockedAddr(ip); bad {
			return nil, fmt.Errorf("%w: %s resolves to %s, which is %s", ErrURLDenied, host, ip, r)
		}
	}
	d := net.Dialer{Control: controlPublic}
	var lastErr error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func (g *URLGuard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if g.LookupIP != nil {
		return g.LookupIP(ctx, "ip", host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// controlPublic refuses a socket whose peer address is not public. It
// runs after resolution, immediately before connect(2).
func controlPublic(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable peer %q", ErrURLDenied, address)
	}
	if r, bad := BlockedAddr(ap.Addr()); bad {
		return fmt.Errorf("%w: %s is %s", ErrURLDenied, ap.Addr(), r)
	}
	return nil
}

// urlsIn finds the http(s)/ftp URLs written inside s, for the command
// guard to judge their hosts.
func urlsIn(s string) []*url.URL {
	var out []*url.URL
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return out
		}
		j += i
		start := j
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := j + 3
		for end < len(s) && !strings.ContainsRune(" \t\n'\"`<>(){}|;,", rune(s[end])) {
			end++
		}
		if start < j {
			if u, err := url.Parse(s[start:end]); err == nil && u.Host != "" {
				out = append(out, u)
			}
		}
		i = j + 3
	}
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}
