package ocr

import (
	"image"
	"slices"
	"strings"
	"unicode"
)

// Match is a run of consecutive words of one line that reads as a phrase.
type Match struct {
	Text string          // the words as read, joined by spaces
	Box  image.Rectangle // the union of their boxes
	// Confidence is the lowest of the words' confidences.
	Confidence int
	// Distance is the edit distance between the folded phrase and the folded words (0 for Find).
	Distance int
}

// Fold is how a phrase and words are compared: lower case, without the punctuation and symbols
// at either end ("Save:" and "(save)" read as "save"), since Tesseract keeps a label's colon and
// an agent rarely types it.
func Fold(s string) string {
	return strings.TrimFunc(strings.ToLower(s), func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
}

// phraseWords splits a phrase into folded words, dropping those that fold to nothing.
func phraseWords(phrase string) []string {
	var out []string
	for _, f := range strings.Fields(phrase) {
		if w := Fold(f); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Find returns every run of consecutive words on one line that equals phrase, word for word
// after folding, in reading order (top to bottom, then left to right). A word matches whole:
// "Save" does not match "Saved".
func (r Result) Find(phrase string) []Match {
	want := phraseWords(phrase)
	if len(want) == 0 {
		return nil
	}
	var out []Match
	r.runs(len(want), func(run []Word) {
		for i, w := range run {
			if Fold(w.Text) != want[i] {
				return
			}
		}
		out = append(out, match(run, 0))
	})
	return readingOrder(out)
}

// Closest returns up to n runs of as many words as phrase, nearest to it by edit distance,
// nearest first: what OCR saw instead when Find found nothing (a misread "5ave", a different
// label).
func (r Result) Closest(phrase string, n int) []Match {
	want := strings.Join(phraseWords(phrase), " ")
	k := len(phraseWords(phrase))
	if k == 0 || n <= 0 {
		return nil
	}
	var all []Match
	r.runs(k, func(run []Word) {
		folded := make([]string, len(run))
		for i, w := range run {
			folded[i] = Fold(w.Text)
		}
		all = append(all, match(run, editDistance(want, strings.Join(folded, " "))))
	})
	all = readingOrder(all) // ties in reading order
	slices.SortStableFunc(all, func(a, b Match) int { return a.Distance - b.Distance })
	return all[:min(n, len(all))]
}

// runs calls f with every run of k consecutive words of one line.
func (r Result) runs(k int, f func([]Word)) {
	for start := 0; start < len(r.Words); {
		end := start
		for end < len(r.Words) && r.Words[end].Line == r.Words[start].Line {
			end++
		}
		for i := start; i+k <= end; i++ {
			f(r.Words[i : i+k])
		}
		start = end
	}
}

func match(run []Word, dist int) Match {
	m := Match{Box: run[0].Box, Confidence: run[0].Confidence, Distance: dist}
	texts := make([]string, len(run))
	for i, w := range run {
		texts[i] = w.Text
		m.Box = m.Box.Union(w.Box)
		m.Confidence = min(m.Confidence, w.Confidence)
	}
	m.Text = strings.Join(texts, " ")
	return m
}

// readingOrder sorts matches into rows (boxes whose vertical centres lie within half the row's
// first box's height of it, so words on one line that Tesseract boxed a pixel apart stay
// together), rows top to bottom, each left to right. Tesseract's own order follows its blocks,
// which is not the order a person reads a dialog in.
func readingOrder(ms []Match) []Match {
	cy := func(m Match) int { return m.Box.Min.Y + m.Box.Max.Y } // twice the centre
	slices.SortStableFunc(ms, func(a, b Match) int { return cy(a) - cy(b) })
	for start := 0; start < len(ms); {
		end := start + 1
		for end < len(ms) && cy(ms[end])-cy(ms[start]) <= ms[start].Box.Dy() {
			end++
		}
		slices.SortStableFunc(ms[start:end], func(a, b Match) int { return a.Box.Min.X - b.Box.Min.X })
		start = end
	}
	return ms
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
