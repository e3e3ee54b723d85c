package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

var (
	probeOnce sync.Once
	probed    Info
	features  landlockFeatures
	// socketsErr says why commands without the network policy can still
	// open unix sockets (see seccomp_linux.go), nil where they cannot.
	socketsErr error
)

// Probe reports what confinement this system gives commands.
func Probe() Info {
	probeOnce.Do(func() { probed = probe() })
	var info Info
	switch {
	case probed.Namespaces && mountsBroken.Load():
		info = describe(features, errors.New("the private mounts failed"), socketsErr)
		info.OverlayReason = "The copy-on-write layer needs the sandbox's private mounts, which failed on this system."
	case probed.Namespaces && splitOnly:
		info = describe(features, errors.New("split grants forced by a test"), socketsErr)
		info.OverlayReason = "The copy-on-write layer needs the sandbox's private mount namespaces, which a test turned off."
	default:
		return probed
	}
	return info
}

func probe() Info {
	abi, err := landlockABI()
	if err != nil {
		return Info{Summary: "off (" + err.Error() + "): commands run with the server's rights",
			OverlayReason: "The copy-on-write layer needs the command sandbox, which is off here (" + err.Error() + ")."}
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return Info{Summary: fmt.Sprintf("off (/proc/self/exe is not available to re-execute the sandbox helper: %v)", err),
			OverlayReason: "The copy-on-write layer needs the command sandbox, which is off here (/proc/self/exe is not available)."}
	}
	features = probeLandlock(abi)
	socketsErr = seccompErr()
	info := describe(features, namespacesErr(), socketsErr)
	if err := overlayErr(info); err != nil {
		info.OverlayReason = sentence(err.Error())
	} else {
		info.Overlay = true
	}
	return info
}

// sentence makes s one sentence for the user: capitalised, with a full
// stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// describe says what commands get from these Landlock features
// with (nsErr == nil) or without private namespaces, and with (sockErr
// == nil) or without the seccomp filter that denies unix sockets.
func describe(f landlockFeatures, nsErr, sockErr error) Info {
	info := Info{Landlock: f.ABI}
	if nsErr == nil {
		info.Namespaces, info.Full = true, true
		info.Summary = fmt.Sprintf("Landlock ABI %d + private user, mount, network and PID namespaces", f.ABI)
		if sockErr == nil {
			info.Summary += " + seccomp (no unix sockets without network)"
		} else {
			info.Full = false
			info.Summary += fmt.Sprintf("; path-named sockets outside /tmp and /run reachable (%v)", sockErr)
		}
	} else {
		var missing []string
		switch {
		case f.Net&llNetUDP != 0:
			missing = append(missing, "network blocked by Landlock alone")
		case f.Net != 0:
			missing = append(missing, "only TCP blocked, UDP open")
		default:
			missing = append(missing, "network open (Landlock ABI < 4)")
		}
		missing = append(missing,
			"processes that leave the process group can outlive the call",
			"names in .catbuddy/ and ~/.ssh listable, contents not (so every command is asked about while .catbuddy/ exists)",
			"nothing can be created directly in the workspace root")
		if sockErr != nil && f.FS&llResolveUnix == 0 {
			missing = append(missing, fmt.Sprintf("path-named sockets reachable (%v)", sockErr))
		}
		info.Summary = fmt.Sprintf("partial: Landlock ABI %d without namespaces (%v): %s", f.ABI, nsErr, strings.Join(missing, "; "))
	}
	if f.Scoped == 0 {
		info.Full = false
		info.Summary += "; abstract sockets and signals not scoped (Landlock ABI < 6)"
	}
	return info
}
