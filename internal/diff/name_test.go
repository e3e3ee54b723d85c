package diff

import (
	"strings"
	"testing"
)

func TestQuoteName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"calc.go", "calc.go"},
		{"src/my file.go", "src/my file.go"},
		{"été/naïve.txt", "été/naïve.txt"},
		{"a\x1b[2J\nb.txt", `"a\x1b[2J\nb.txt"`},
		{"tab\there", `"tab\there"`},
		{"cr\rhere", `"cr\rhere"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"csi\u009b2J", `"csi\u009b2J"`},
		{"rlo\u202etxt.exe", `"rlo\u202etxt.exe"`},
		{`"quoted"`, `"\"quoted\""`},
		{`back\slash`, `back\slash`},
	} {
		got := QuoteName(tc.name)
		if got != tc.want {
			t.Errorf("QuoteName(%q) = %s, want %s", tc.name, got, tc.want)
		}
		if strings.ContainsAny(got, "\x1b\n\r\t") {
			t.Errorf("QuoteName(%q) = %q still holds a control character", tc.name, got)
		}
	}
}
