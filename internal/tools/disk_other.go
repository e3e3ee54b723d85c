//go:build !unix

package tools

const nonblock = 0
