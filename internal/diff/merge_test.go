package diff

import "testing"

func TestMerge3(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	if got, ok := Merge3([]byte(base), []byte("A\nb\nc\nd\ne\n"), []byte("a\nb\nc\nd\nE\n")); !ok || string(got) != "A\nb\nc\nd\nE\n" {
		t.Errorf("separate changes: %q %v", got, ok)
	}
	if _, ok := Merge3([]byte(base), []byte("a\nB\nc\nd\ne\n"), []byte("a\nb!\nc\nd\ne\n")); ok {
		t.Errorf("changes to the same line merged")
	}
}
