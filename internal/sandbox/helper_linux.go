package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Main turns the process into the sandbox helper when it was started as
// one (Prepare sets the spec variable): it confines its own thread and
// executes the command, never returning. Otherwise it returns at once.
// Every binary that runs confined commands calls it first thing in
// main, and every test binary whose tests do in TestMain, because the
// helper is that same binary re-executed.
func Main() {
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		return
	}
	os.Unsetenv(specEnv)
	runtime.LockOSThread()
	err := enterSandbox(raw)
	fmt.Fprintf(os.Stderr, "cb-ls sandbox: %v; the command was not run\n", err)
	os.Exit(126)
}

// enterSandbox applies the spec and execs its argv; it returns only on
// failure.
func enterSandbox(raw string) error {
	var spec helperSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("bad spec: %v", err)
	}
	if len(spec.Argv) == 0 {
		return fmt.Errorf("bad spec: no command")
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	if m := spec.Mounts; m != nil {
		if err := applyMounts(m); err != nil {
			// A layer that cannot be mounted has its own message: the
			// caller must not run the command again without it.
			var le *layerError
			if errors.As(err, &le) {
				fmt.Fprintln(os.Stderr, le)
			} else {
				fmt.Fprintf(os.Stderr, "%s: %v\n", mountsFailed, err)
			}
			os.Exit(mountsFailedCode)
		}
		if m.Loopback {
			if err := loopbackUp(); err != nil {
				fmt.Fprintf(os.Stderr, "cb-ls sandbox: no loopback in the private network: %v\n", err)
			}
		}
		mountProc()
		if err := unix.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("enter %s: %v", spec.Dir, err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := restrictSelf(probeLandlock(abi), spec.Rules, spec.DenyTCP); err != nil {
		return err
	}
	if spec.DenyUnix {
		if err := denyUnixSockets(); err != nil {
			return err
		}
	}
	return unix.Exec(spec.Argv[0], spec.Argv, os.Environ())
}
