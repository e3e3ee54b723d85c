//go:build !unix

package safefile

// NonBlock is a no-op here: there are no FIFOs to block on.
const NonBlock = 0
