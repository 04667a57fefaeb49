-- The schema plandash created before one database handle (commit 062ef0f): each of the three
-- stores ran its own CREATE statements on open and recorded no version (user_version 0).
-- Rows are as that code wrote them. Used by TestOpensOldSchema.

-- internal/plans/sqlite/sqlite.go
CREATE TABLE IF NOT EXISTS sessions (
	id TEXT PRIMARY KEY,
	body BLOB NOT NULL,
	last_seen INTEGER NOT NULL,
	ended INTEGER NOT NULL DEFAULT 0,
	seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_seq ON sessions(seq);
CREATE INDEX IF NOT EXISTS sessions_last_seen ON sessions(last_seen);
CREATE TABLE IF NOT EXISTS plans (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	removed INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, plan_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS plan_revisions (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	revision INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, plan_id, revision)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_calls (
	session_id TEXT NOT NULL,
	id TEXT NOT NULL,
	created INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS activity (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_session ON activity(session_id, id);

-- internal/approval/sqlite/sqlite.go
CREATE TABLE IF NOT EXISTS approval_requests (
	id TEXT PRIMARY KEY,
	status TEXT NOT NULL,
	created INTEGER NOT NULL,
	deadline INTEGER NOT NULL,
	decided INTEGER,
	seq INTEGER NOT NULL,
	title TEXT NOT NULL,
	agent TEXT NOT NULL,
	session_id TEXT NOT NULL,
	plan_type TEXT NOT NULL,
	plan_size INTEGER NOT NULL,
	options TEXT NOT NULL,
	default_outcome TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS approval_requests_pending ON approval_requests(created) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS approval_requests_deadline ON approval_requests(deadline) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS approval_requests_decided ON approval_requests(decided) WHERE decided IS NOT NULL;
CREATE TABLE IF NOT EXISTS approval_rules (
	id TEXT PRIMARY KEY,
	created INTEGER NOT NULL,
	revoked INTEGER,
	seq INTEGER NOT NULL,
	body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS approval_audit (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	at INTEGER NOT NULL,
	request_id TEXT NOT NULL,
	session_id TEXT NOT NULL,
	agent TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS approval_audit_session ON approval_audit(session_id, id);
CREATE INDEX IF NOT EXISTS approval_audit_agent ON approval_audit(agent, id);

-- internal/sharedplans/history/history.go
CREATE TABLE IF NOT EXISTS shared_plan_history (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	revision INTEGER NOT NULL,
	removed INTEGER NOT NULL DEFAULT 0,
	title TEXT NOT NULL DEFAULT '',
	author TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL DEFAULT '',
	content TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL DEFAULT '',
	seen_at INTEGER NOT NULL,
	source TEXT NOT NULL DEFAULT 'disk'
);
CREATE INDEX IF NOT EXISTS shared_plan_history_name ON shared_plan_history(name, seq);

-- data
INSERT INTO sessions(id, body, last_seen, ended, seq) VALUES('old-session',
	'{"id":"old-session","agent":"claude","firstSeen":"2026-01-02T03:04:05Z","lastSeen":"2026-01-02T03:05:00Z","seq":7}',
	1767323100000000000, 0, 7);
INSERT INTO plans(session_id, plan_id, removed, updated, body) VALUES('old-session', 'main', 0, 1767323100000000000,
	'{"sessionId":"old-session","id":"main","kind":"items","type":"items","revision":2,"created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:05:00Z","entries":[{"content":"ship it","priority":"high","status":"completed"}],"seq":7}');
INSERT INTO plan_revisions(session_id, plan_id, revision, body) VALUES
	('old-session', 'main', 1, '{"sessionId":"old-session","id":"main","kind":"items","type":"items","revision":1,"created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z","entries":[{"content":"ship it","priority":"high","status":"pending"}],"seq":6}'),
	('old-session', 'main', 2, '{"sessionId":"old-session","id":"main","kind":"items","type":"items","revision":2,"created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:05:00Z","entries":[{"content":"ship it","priority":"high","status":"completed"}],"seq":7}');
INSERT INTO activity(session_id, body) VALUES('old-session', '{"id":0,"sessionId":"old-session","at":"2026-01-02T03:04:30Z","kind":"message","text":"on it"}');
INSERT INTO approval_requests(id, status, created, deadline, decided, seq, title, agent, session_id, plan_type, plan_size, options, default_outcome, body)
	VALUES('old-request', 'pending', 1767323045000000000, 1767326645000000000, NULL, 3, 'Deploy', 'claude', 'old-session', 'items', 1, 'approve,modify,reject', 'reject',
	'{"id":"old-request","status":"pending","sessionId":"old-session","agent":"claude","title":"Deploy","plan":{"type":"items","entries":[{"content":"deploy","priority":"high","status":"pending"}]},"options":["approve","modify","reject"],"default":"reject","created":"2026-01-02T03:04:05Z","deadline":"2026-01-02T04:04:05Z","seq":3}');
INSERT INTO approval_rules(id, created, revoked, seq, body) VALUES('old-rule', 1767323045000000000, NULL, 4,
	'{"id":"old-rule","agent":"claude","createdBy":"ann","created":"2026-01-02T03:04:05Z","seq":4}');
INSERT INTO approval_audit(at, request_id, session_id, agent, body) VALUES(1767323045000000000, 'old-request', 'old-session', 'claude',
	'{"id":0,"at":"2026-01-02T03:04:05Z","event":"requested","requestId":"old-request","sessionId":"old-session","agent":"claude","title":"Deploy"}');
INSERT INTO shared_plan_history(name, revision, removed, title, author, status, content, updated_at, seen_at, source)
	VALUES('release', 1, 0, 'Release', 'ann', '', '- [ ] tag', '2026-01-02T03:04:05Z', 1767323045000, 'disk');
