package plans

import (
	"context"

	"github.com/plandash/plandash/internal/paging"
)

// SessionsPage lists one page of sessions, most recently seen first.
func (s *Service) SessionsPage(ctx context.Context, r paging.Request) ([]Session, paging.Cursor, error) {
	return s.store.SessionsPage(ctx, r.Clamp())
}

// ActivePage is one page of the overview's data: active sessions with their live plans, and the
// Seq it reflects.
func (s *Service) ActivePage(ctx context.Context, r paging.Request) ([]SessionPlans, paging.Cursor, uint64, error) {
	return s.store.ActivePage(ctx, s.cfg.Now(), s.cfg.Idle, r.Clamp())
}

// ToolCallsPage lists one page of a session's tool calls, oldest first; a session that does not
// exist is an error of kind NotFound.
func (s *Service) ToolCallsPage(ctx context.Context, sessionID string, r paging.Request) ([]ToolCall, paging.Cursor, error) {
	if _, err := s.store.Session(ctx, sessionID); err != nil {
		return nil, paging.Cursor{}, err
	}
	return s.store.ToolCallsPage(ctx, sessionID, r.Clamp())
}

// RevisionsPage lists one page of a plan's revisions, newest first, and the newest revision's
// number; a plan without revisions is an error of kind NotFound.
func (s *Service) RevisionsPage(ctx context.Context, sessionID, planID string, r paging.Request) ([]RevisionInfo, paging.Cursor, int, error) {
	list, next, newest, err := s.store.RevisionsPage(ctx, sessionID, planID, r.Clamp())
	if err == nil && newest == 0 {
		return nil, paging.Cursor{}, 0, ErrNotFound
	}
	return list, next, newest, err
}

// RevisionAt is one revision of a plan, read without the rest of its history.
func (s *Service) RevisionAt(ctx context.Context, sessionID, planID string, revision int) (Revision, error) {
	return s.store.RevisionAt(ctx, sessionID, planID, revision)
}
