package views

import (
	"context"
	"slices"

	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/templates"
)

// recentDeliveries is how many of each target's deliveries the settings page lists.
const recentDeliveries = 10

// NotifySettings is the notification settings page: the Web Push key and each target with its
// recent deliveries. Only with a notifier (Deps.Notify).
func (p *Pages) NotifySettings(ctx context.Context) (templates.NotifySettingsPage, error) {
	var out templates.NotifySettingsPage
	keys, err := p.notify.VAPID(ctx)
	if err != nil {
		return out, err
	}
	out.VAPIDKey = keys.PublicKey()
	ts, err := p.notify.Targets(ctx)
	if err != nil {
		return out, err
	}
	for _, t := range ts {
		ds, err := p.notify.Deliveries(ctx, t.ID, recentDeliveries)
		if err != nil {
			return out, err
		}
		nt := templates.NotifyTarget{Target: t, Where: t.Redacted().URL, Deliveries: ds}
		for _, k := range waits.Kinds {
			nt.Kinds = append(nt.Kinds, templates.NotifyKind{Name: string(k), Label: kindLabel(k),
				On: len(t.Filter.Kinds) == 0 || slices.Contains(t.Filter.Kinds, string(k))})
		}
		out.Targets = append(out.Targets, nt)
	}
	return out, nil
}

// kindLabel is how the settings page names a kind of wait.
func kindLabel(k waits.Kind) string {
	switch k {
	case waits.KindPlan:
		return "plans at the gate"
	case waits.KindPermission:
		return "permission requests"
	case waits.KindQuestion:
		return "questions"
	case waits.KindInput:
		return "waiting for your next prompt"
	}
	return string(k)
}
