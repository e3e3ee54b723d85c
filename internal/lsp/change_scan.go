package lsp

import "bytes"

// rangesWellFormed is checkChanges' fast path for the common case (every
// keystroke): it finds each "range" key in the raw params and checks that
// its value is {"start":{"line":N,"character":N},"end":{…}} with unsigned
// 32-bit integers, without decoding anything else. A quote inside a JSON
// string is escaped, so every `"range"` found is a key. It returns true
// when there are exactly partial such ranges and all are well formed;
// false sends the caller to the exact (slower) check.
func rangesWellFormed(raw []byte, partial int) bool {
	n := 0
	for i := 0; ; {
		k := bytes.Index(raw[i:], []byte(`"range"`))
		if k < 0 {
			break
		}
		i += k + len(`"range"`)
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] != ':' {
			continue
		}
		end, ok := scanRange(raw, skipWS(raw, i+1))
		if !ok {
			return false
		}
		i = end
		n++
	}
	return n == partial
}

// scanRange checks a range object starting at i and returns the index
// after it.
func scanRange(b []byte, i int) (int, bool) { return scanPair(b, i, "start", "end", scanPosition) }

func scanPosition(b []byte, i int) (int, bool) {
	return scanPair(b, i, "line", "character", scanUint32)
}

// scanPair checks an object holding exactly the keys k1 and k2, in any
// order, each value accepted by val.
func scanPair(b []byte, i int, k1, k2 string, val func([]byte, int) (int, bool)) (int, bool) {
	seen := 0
	return scanObject(b, i, func(key []byte, j int) (int, bool) {
		var bit int
		switch string(key) {
		case k1:
			bit = 1
		case k2:
			bit = 2
		default:
			return 0, false
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		return val(b, j)
	}, func() bool { return seen == 3 })
}

// scanObject walks {"key": value, …} at i, calling member for each key with
// the index of its value; member returns the index after the value.
func scanObject(b []byte, i int, member func(key []byte, j int) (int, bool), complete func() bool) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = skipWS(b, i+1)
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 {
			return 0, false
		}
		key := b[i+1 : i+1+end]
		i = skipWS(b, i+2+end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		j, ok := member(key, skipWS(b, i+1))
		if !ok {
			return 0, false
		}
		i = skipWS(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' && complete() {
			return i + 1, true
		}
		return 0, false
	}
}

// scanUint32 accepts a JSON number that is an unsigned 32-bit integer.
func scanUint32(b []byte, i int) (int, bool) {
	start, v := i, uint64(0)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 11 {
		v = v*10 + uint64(b[i]-'0')
		i++
	}
	if i == start || v > 1<<32-1 || (b[start] == '0' && i-start > 1) {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || (b[i] >= '0' && b[i] <= '9')) {
		return 0, false
	}
	return i, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
