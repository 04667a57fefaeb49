package app

import "context"

// OpenDatabase opens the database cfg names (cfg.DB, else the SQLite file in cfg.DataDir) and
// nothing else, for the commands that work on it directly while a server may be running, such
// as `plandash tokens`.
func OpenDatabase(ctx context.Context, cfg Config) (Database, error) { return openDatabase(ctx, cfg) }
