//go:build !unix

package main

import "io"

// pollable returns r unchanged: only Unix pipes are switched to the poller.
func pollable(r io.Reader) io.Reader { return r }
