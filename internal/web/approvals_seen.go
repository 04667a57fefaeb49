package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// seenProof is what a decision form carries to show that the plan of request id was on the
// person's screen: a MAC of the id under the server's token, printed only next to the plan (on
// the request's page, which the inbox also fetches to expand a row). It cannot be guessed
// without the token, but it proves that the client loaded a page showing the plan, not that a
// person read it: it stops the one-click (or j-then-a) approval of a plan nobody opened, not a
// client that means to skip it, which can use the API with the token anyway.
func (a *Auth) seenProof(id string) string {
	m := hmac.New(sha256.New, append([]byte("plandash seen v1\x00"), a.token...))
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// seenOK reports whether proof is request id's seenProof.
func (a *Auth) seenOK(id, proof string) bool {
	return hmac.Equal([]byte(proof), []byte(a.seenProof(id)))
}

// errNotSeen refuses an approval whose form does not show the plan was on screen.
var errNotSeen = errs.Errorf(errs.Invalid, "the plan was not shown before approving it; open it (or expand it in the list), then approve")

// errEditedApprove refuses the plain approval of a form whose editor holds changes: approving
// would send the agent the original plan and silently drop them.
var errEditedApprove = errs.Errorf(errs.Conflict, "you changed the plan in the editor; approve with changes, or discard the changes first")

// editedPlan reports whether the editor fields of form differ from the request's plan. A form
// without editor fields (the inbox's) has nothing edited.
func editedPlan(form url.Values, req approval.Request) bool {
	if !form.Has("content") && !form.Has("markdown") && !form.Has("calls") {
		return false
	}
	p, err := planFromForm(form, req.Plan.Type)
	if err != nil {
		return true // the editor sent something unreadable: not the plan as submitted
	}
	orig := req.Plan
	switch orig.Type {
	case approval.TypeItems:
		if len(p.Entries) != len(orig.Entries) {
			return true
		}
		for i, e := range orig.Entries {
			e.Content = strings.TrimSpace(e.Content) // as the editor sends it
			if !p.Entries[i].SameShown(e) {
				return true
			}
		}
		return false
	case approval.TypeMarkdown:
		return strings.TrimRight(p.Markdown, "\n") != strings.TrimRight(strings.ReplaceAll(orig.Markdown, "\r\n", "\n"), "\n")
	case approval.TypeDAG:
		return !sameJSON(p.Calls, orig.Calls)
	}
	return false
}

// sameJSON compares two JSON documents by value: the editor shows calls indented.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// approveRefused is why a form's plain approval of the pending request req is refused: the
// plan was never shown (seen is false: the form's proof is not the request's), or the editor
// holds changes that approving would drop. Nil lets it on.
func approveRefused(form url.Values, req approval.Request, seen bool) error {
	if !seen {
		return errNotSeen
	}
	if editedPlan(form, req) {
		return errEditedApprove
	}
	return nil
}

// keptEdit is the editor's content to show again after a refusal, when the form had an editor.
func keptEdit(form url.Values, p approval.PlanBody) *approval.PlanBody {
	if !form.Has("content") && !form.Has("markdown") && !form.Has("calls") {
		return nil
	}
	return &p
}
