package catalog

// Withhold names the fields of one call that carry text an agent typed or pasted, so that
// whatever keeps calls (the evidence recorder) can leave that text out without knowing tools.
// A tool attaches it by returning a result (or an error's partialResult) that implements
// Withholder; nothing of it reaches the wire.
type Withhold struct {
	// Fields name the string values, in the call's arguments and in its result, that hold the
	// typed text: top-level names, or dotted paths through nested objects ("effect.target.value").
	Fields []string
	// Reason, when set, says why the text is withheld whatever the configuration ("password
	// field"). Empty: it is withheld only where the operator withholds all typed text.
	Reason string
}

// Withholder is implemented by results that carry a Withhold note.
type Withholder interface {
	Withheld() Withhold
}
