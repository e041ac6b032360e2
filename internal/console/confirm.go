package console

import (
	"net/http"
	"net/url"
)

// confirmView is the page a mutating action shows before it runs: what a
// dry run found, and a button that does it.
type confirmView struct {
	Heading string
	// Lines say what the dry run counted.
	Lines []string
	// Warning, when set, says what the action does that cannot be taken
	// back: a replay's handler deliveries apply their effects again.
	Warning string
	// Action is where the confirmation is posted, with Fields.
	Action string
	Fields []field
	// Button is the confirming button's text; it starts with the verb.
	Button string
	// Nothing is true when the dry run found nothing to do: the page then
	// offers no button.
	Nothing   bool
	CancelURL string
}

// field is one hidden form field.
type field struct{ Name, Value string }

// fields turns values into hidden fields, with confirm=1 added.
func confirmFields(v url.Values) []field {
	out := []field{{Name: "confirm", Value: "1"}}
	for k, vs := range v {
		for _, x := range vs {
			out = append(out, field{Name: k, Value: x})
		}
	}
	return out
}

// confirmed reports whether a form is the confirmation of an action, not
// its first step (the dry run).
func confirmed(r *http.Request) bool { return r.PostForm.Get("confirm") == "1" }
