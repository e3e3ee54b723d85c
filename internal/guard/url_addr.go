package guard

import (
	"net/netip"
	"strconv"
	"strings"
)

// blockedPrefix is an address range the agent may never reach, with the
// reason the model is told.
type blockedPrefix struct {
	p      netip.Prefix
	reason string
}

// blockedPrefixes lists every range that is not the public internet:
// IANA special-purpose registries for IPv4 and IPv6, plus multicast.
var blockedPrefixes = func() []blockedPrefix {
	list := []struct{ cidr, reason string }{
		{"0.0.0.0/8", "unspecified (this network)"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "carrier-grade NAT"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (cloud metadata)"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "reserved (IETF protocol assignments)"},
		{"192.0.2.0/24", "reserved (documentation)"},
		{"192.88.99.0/24", "reserved (6to4 relay)"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "reserved (benchmarking)"},
		{"198.51.100.0/24", "reserved (documentation)"},
		{"203.0.113.0/24", "reserved (documentation)"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved"}, // includes 255.255.255.255
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "reserved (IPv4-compatible)"},
		{"64:ff9b:1::/48", "reserved (local NAT64)"},
		{"100::/64", "reserved (discard)"},
		{"2001::/23", "reserved (IETF protocol assignments, Teredo)"},
		{"2001:db8::/32", "reserved (documentation)"},
		{"3fff::/20", "reserved (documentation)"},
		{"fc00::/7", "private (unique local)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "reserved (site-local)"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedPrefix, len(list))
	for i, e := range list {
		out[i] = blockedPrefix{netip.MustParsePrefix(e.cidr), e.reason}
	}
	return out
}()

// BlockedAddr reports whether ip is outside the public internet and why.
// IPv4 addresses embedded in IPv6 (mapped, NAT64, 6to4) are judged by
// the IPv4 address they carry.
func BlockedAddr(ip netip.Addr) (reason string, blocked bool) {
	if !ip.IsValid() {
		return "invalid address", true
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		return BlockedAddr(ip.Unmap())
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(ip): // NAT64
			if r, bad := BlockedAddr(netip.AddrFrom4([4]byte(b[12:16]))); bad {
				return r + " via NAT64", true
			}
		case netip.MustParsePrefix("2002::/16").Contains(ip): // 6to4
			if r, bad := BlockedAddr(netip.AddrFrom4([4]byte(b[2:6]))); bad {
				return r + " via 6to4", true
			}
		}
	}
	for _, bp := range blockedPrefixes {
		if bp.p.Contains(ip) {
			return bp.reason, true
		}
	}
	return "", false
}

// internalNames are host names that always mean this machine or the
// cloud provider's metadata service, whatever DNS says.
var internalNames = map[string]string{
	"localhost":                  "loopback",
	"localhost.localdomain":      "loopback",
	"ip6-localhost":              "loopback",
	"ip6-loopback":               "loopback",
	"metadata":                   "cloud metadata",
	"metadata.google.internal":   "cloud metadata",
	"metadata.goog":              "cloud metadata",
	"instance-data":              "cloud metadata",
	"instance-data.ec2.internal": "cloud metadata",
	"metadata.azure.internal":    "cloud metadata",
}

// NormalizeHost lowercases host and strips brackets, an IPv6 zone and
// one trailing dot, so every spelling of a name compares equal.
func NormalizeHost(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	host = strings.TrimPrefix(host, "[")
	host = strings.TrimSuffix(host, "]")
	if i := strings.IndexByte(host, '%'); i >= 0 && strings.Contains(host, ":") {
		host = host[:i]
	}
	return strings.TrimSuffix(host, ".")
}

// HostAddr parses host as an IP address in any spelling a resolver or
// browser accepts: dotted quads, IPv6 (bracketed or not, with zone), and
// the inet_aton forms 2130706433, 0x7f000001, 0177.0.0.1 and 127.1.
func HostAddr(host string) (netip.Addr, bool) {
	h := NormalizeHost(host)
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.WithZone(""), true
	}
	return parseLooseIPv4(h)
}

// parseLooseIPv4 implements inet_aton: one to four parts, each decimal,
// 0x-hex or 0-octal, the last part filling the remaining bytes.
func parseLooseIPv4(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// BlockedHost judges a host as written, before any DNS lookup: an
// address in any spelling, localhost and *.localhost, and the cloud
// metadata names. A name that passes may still resolve to an internal
// address; the dialer checks that at connect time.
func BlockedHost(host string) (reason string, blocked bool) {
	h := NormalizeHost(host)
	if h == "" {
		return "empty host", true
	}
	if ip, ok := HostAddr(h); ok {
		return BlockedAddr(ip)
	}
	if r, ok := internalNames[h]; ok {
		return r, true
	}
	if strings.HasSuffix(h, ".localhost") {
		return "loopback", true
	}
	return "", false
}
