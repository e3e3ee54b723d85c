package lspclient

import (
	"context"
	"fmt"
)

// This file is a server's life in the client: started on first need (or
// with the session), restarted once after a crash, withdrawn for the
// session when it cannot answer.

// get returns the running server called name, starting it if needed.
// A server that could not start is withdrawn; one that crashed is
// started once more, and withdrawn when it crashes again. The client's
// lock is not held while a server starts: a slow start holds up only
// the questions for that server.
func (c *Client) get(ctx context.Context, name string) (*server, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, errStopped
		}
		exts := c.opts.Servers[name].Extensions
		if _, ok := c.withdrawn[name]; ok {
			c.mu.Unlock()
			return nil, stillWithdrawn(name, exts)
		}
		if ch := c.starting[name]; ch != nil {
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		state, text := StateStarting, "starting "+name+"…"+c.conf.note()
		if s := c.started[name]; s != nil {
			err := s.failed()
			if err == nil {
				c.mu.Unlock()
				return s, nil
			}
			delete(c.started, name)
			if c.restarts[name] > 0 {
				var emit []Status
				werr := c.withdraw(name, fmt.Errorf("it crashed again after a restart: %w", err), &emit)
				c.mu.Unlock()
				c.tell(emit)
				return nil, werr
			}
			c.restarts[name]++
			state, text = StateRestarting, fmt.Sprintf("restarting %s, which crashed…%s", name, c.conf.note())
			c.log.Warn("restarting language server", "server", name, "error", err)
		}
		done := make(chan struct{})
		c.starting[name] = done
		c.mu.Unlock()
		return c.startServer(ctx, name, done, Status{Server: name, State: state, Text: text})
	}
}

// startServer starts the server called name, then closes done.
func (c *Client) startServer(ctx context.Context, name string, done chan struct{}, st Status) (*server, error) {
	st.Confined = c.conf.confined
	c.status(st)
	sctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	c.log.Info("starting language server", "server", name, "command", c.opts.Servers[name].Command)
	s, err := start(sctx, name, c.opts.Servers[name], c.opts.Roots, c.conf, c.log)
	var emit []Status
	c.mu.Lock()
	delete(c.starting, name)
	close(done)
	switch {
	case err != nil && ctx.Err() != nil:
		// The question was cancelled, not the server's fault.
	case err != nil:
		err = c.withdraw(name, err, &emit)
	case c.closed:
		go s.stop(context.Background())
		s, err = nil, errStopped
	default:
		c.started[name] = s
	}
	c.mu.Unlock()
	c.tell(emit)
	return s, err
}

// tell reports statuses gathered under the lock.
func (c *Client) tell(sts []Status) {
	for _, st := range sts {
		c.status(st)
	}
}

// withdraw marks the server unusable for the session; c.mu is held. The
// returned error names it and why, once; emit gets the user's line.
func (c *Client) withdraw(name string, cause error, emit *[]Status) error {
	c.withdrawn[name] = cause
	err := withdrawal(name, c.opts.Servers[name].Extensions, cause)
	c.log.Warn("language server withdrawn", "server", name, "error", cause)
	*emit = append(*emit, Status{Server: name, State: StateUnavailable, Text: err.Error()})
	return err
}

// withdrawRunning withdraws the started server s.
func (c *Client) withdrawRunning(s *server, cause error) error {
	var emit []Status
	c.mu.Lock()
	if c.started[s.name] == s {
		delete(c.started, s.name)
	}
	err := c.withdraw(s.name, cause, &emit)
	c.mu.Unlock()
	c.tell(emit)
	return err
}

// Withdrawn reports whether every configured server has been withdrawn:
// then no language tool can answer.
func (c *Client) Withdrawn() bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.withdrawn) == len(c.opts.Servers)
}
