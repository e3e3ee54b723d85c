package shell

// escapeFilter drops terminal escape sequences from a byte stream:
// colours and cursor moves (CSI, ESC [ … final), titles and hyperlinks
// (OSC, ESC ] … BEL or ESC \), the other string controls (DCS, SOS, PM,
// APC) and the short ESC sequences (ESC 7, ESC ( B). A model reads them
// as noise: they were most of the bytes of a coloured test run. Its
// state carries over between writes, so a sequence split across two
// reads of the pipe is still dropped whole.
type escapeFilter struct {
	state escState
	n     int // bytes swallowed by the current string control
}

type escState uint8

const (
	escNone   escState = iota
	escStart           // after ESC
	escCSI             // inside ESC [
	escString          // inside OSC, DCS, SOS, PM or APC
	escStrEsc          // ESC inside a string control (ST is ESC \)
	escInter           // ESC followed by intermediate bytes (ESC ( B)
)

// maxEscString bounds a string control: past it, or at a newline, an
// unterminated one is taken for text, so a stray ESC ] cannot swallow
// the rest of the output.
const maxEscString = 4096

// filter appends p without its escape sequences to dst.
func (f *escapeFilter) filter(dst, p []byte) []byte {
	for _, c := range p {
		switch f.state {
		case escNone:
			if c == 0x1b {
				f.state = escStart
				continue
			}
			dst = append(dst, c)
		case escStart:
			switch {
			case c == '[':
				f.state = escCSI
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				f.state, f.n = escString, 0
			case c >= 0x20 && c <= 0x2f:
				f.state = escInter
			case c == 0x1b:
				// ESC ESC: the first one stands alone.
			case c >= 0x30 && c <= 0x7e:
				f.state = escNone
			default:
				f.state = escNone
				dst = append(dst, c)
			}
		case escCSI:
			switch {
			case c >= 0x40 && c <= 0x7e:
				f.state = escNone
			case c >= 0x20 && c <= 0x3f:
			default: // not a CSI after all: keep the text
				f.state = escNone
				dst = append(dst, c)
			}
		case escString:
			f.n++
			switch {
			case c == 0x07:
				f.state = escNone
			case c == 0x1b:
				f.state = escStrEsc
			case c == '\n' || f.n > maxEscString:
				f.state = escNone
				dst = append(dst, c)
			}
		case escStrEsc:
			if c == '\\' {
				f.state = escNone
			} else {
				f.state = escString
			}
		case escInter:
			switch {
			case c >= 0x20 && c <= 0x2f:
			case c >= 0x30 && c <= 0x7e:
				f.state = escNone
			default:
				f.state = escNone
				dst = append(dst, c)
			}
		}
	}
	return dst
}
