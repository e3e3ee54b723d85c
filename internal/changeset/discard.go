package changeset

import (
	"context"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// Discard drops the chosen hunks from the run's layer: the file holds
// the rest of the run's change, a file with nothing left leaves the set
// (a created file is removed, a deleted file shows again). The user's
// files are never touched. It returns the IDs discarded; the agent's
// news names each hunk, so that the run does not redo it.
func (s *Set) Discard(sel Selection) ([]string, error) {
	lock, err := s.lockOps(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()
	files := s.Files()
	var discarded, news []string
	var errs []string
	s.mu.Lock()
	for _, f := range files {
		if f.Group != nil {
			if !sel.fileChosen(f) {
				continue
			}
			for rel, e := range s.pending[f.Path.Root] {
				if e.group == f.Path.Rel {
					s.revertLayer(pathOf(f.Path.Root, rel))
				}
			}
			discarded = append(discarded, f.Group.ID)
			news = append(news, fmt.Sprintf("the user discarded %s/ (%d files)", f.Path.Rel, f.Group.Count))
			continue
		}
		idx := sel.chosen(f)
		if len(idx) == 0 {
			continue
		}
		if f.Whole != nil {
			// One item: reverted whole, its content never read.
			s.revertLayer(f.Path)
			discarded = append(discarded, f.Hunks[0].ID)
			news = append(news, "the user discarded "+f.Hunks[0].Label)
			continue
		}
		fo := s.folders[f.Path.Root]
		base, err := fo.baseText(context.Background(), f.Path.Rel)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if err := s.dropHunks(f, idx, base); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", f.Path.Rel, err))
			continue
		}
		for _, i := range idx {
			discarded = append(discarded, f.Hunks[i].ID)
			news = append(news, "the user discarded "+describeHunk(f, i, base))
		}
	}
	s.files = nil
	if err := s.saveAll(); err != nil {
		errs = append(errs, err.Error())
	}
	s.mu.Unlock()
	s.addNews(news)
	s.tidy()
	s.changed()
	if len(errs) > 0 {
		return discarded, fmt.Errorf("discard: %s", strings.Join(errs, "; "))
	}
	return discarded, nil
}

// dropHunks reverts hunks idx of f (against base) in the layer: the
// file holds the rest of the run's change, and leaves the set when
// nothing is left. s.mu is held.
func (s *Set) dropHunks(f File, idx []int, base []byte) error {
	if f.Whole != nil || len(idx) == len(f.Hunks) {
		s.revertLayer(f.Path)
		return nil
	}
	var rest []diff.Edit
	for i, h := range f.Hunks {
		if !contains(idx, i) {
			rest = append(rest, h.Edit)
		}
	}
	content, err := diff.Apply(base, rest)
	if err == nil {
		_, err = s.writeLayer(f.Path, false, content, 0)
	}
	return err
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Tell queues a sentence for the agent beside what the user kept and
// discarded: why a front end discarded the set on the user's behalf
// (a review withdrawn unanswered).
func (s *Set) Tell(note string) { s.addNews([]string{note}) }

// addNews queues what the user did for the agent.
func (s *Set) addNews(news []string) {
	if len(news) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.news = append(s.news, news...)
	_ = s.saveAll()
}

// TakeNews returns what the user kept or discarded since it was last
// asked, as sentences for the agent ("the user discarded hunk 2 of
// calc.go (…)"), or "" when nothing happened. The front end puts it in
// the agent's next tool result, or its next turn.
func (s *Set) TakeNews() string {
	s.mu.Lock()
	if len(s.news) == 0 {
		s.mu.Unlock()
		return ""
	}
	out := strings.Join(s.news, "; ") + "."
	s.news = nil
	_ = s.saveAll()
	s.mu.Unlock()
	s.tidy()
	return strings.ToUpper(out[:1]) + out[1:]
}

// tidy removes the run directories of a set with nothing pending and
// nothing to tell: no stale layer is left behind.
func (s *Set) tidy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.news) > 0 {
		return
	}
	for _, idx := range s.pending {
		if len(idx) > 0 {
			return
		}
	}
	for root, f := range s.folders {
		if err := f.remove(); err != nil {
			s.store.log.Warn("remove an empty change set", "dir", f.dir, "error", err)
		}
		delete(s.folders, root)
		delete(s.pending, root)
	}
}
