package templates

import "github.com/plandash/plandash/internal/notify"

// NotifySettingsPage is what the notification settings page shows.
type NotifySettingsPage struct {
	Targets  []NotifyTarget
	VAPIDKey string // the application server key browsers subscribe with
	Error    string // why the last form was refused
}

// NotifyTarget is one target with its recent deliveries. Where is the URL without what may be
// a secret (a Slack webhook URL is its own credential): the page never shows secrets.
type NotifyTarget struct {
	Target     notify.Target
	Where      string
	Deliveries []notify.Delivery
	Kinds      []NotifyKind // every kind of wait, ticked when the target announces it
}

// NotifyKind is one kind of wait in a target's kinds form.
type NotifyKind struct {
	Name  string // plan, permission, question, input
	Label string
	On    bool
}

// AnswerLinkPage is what a capability link's page says.
type AnswerLinkPage struct {
	State    string // confirm, done or refused
	Headline string
	Message  string
	Title    string // what the wait asked
	Label    string // the action, as its button says it
	Action   string
	WaitID   string
	Token    string
	WaitURL  string // the wait's own page
}
