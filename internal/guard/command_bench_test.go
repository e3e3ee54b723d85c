package guard

import "testing"

// BenchmarkCommandGuardCheck measures the guard's cost per exec call on a
// typical compound command line.
func BenchmarkCommandGuardCheck(b *testing.B) {
	g := testCommandGuard()
	cmd := `cd sub && go test ./... 2>&1 | tail -20; bash -lc "make -j4 && ./bin/app --port 8080" || echo failed`
	for b.Loop() {
		if err := g.Check(cmd, ""); err != nil {
			b.Fatal(err)
		}
	}
}
