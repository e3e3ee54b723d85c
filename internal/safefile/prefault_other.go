//go:build unix && !linux

package safefile

func prefault([]byte) {}
