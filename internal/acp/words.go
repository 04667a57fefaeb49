package acp

// internWord returns a static string for the protocol's fixed vocabulary so decoding enum
// values allocates nothing; switch string(b) compiles to comparisons without a conversion.
func internWord(b []byte) (string, bool) {
	switch string(b) {
	case "high":
		return "high", true
	case "medium":
		return "medium", true
	case "low":
		return "low", true
	case "pending":
		return "pending", true
	case "in_progress":
		return "in_progress", true
	case "completed":
		return "completed", true
	case "cancelled":
		return "cancelled", true
	case "failed":
		return "failed", true
	case "items":
		return "items", true
	case "markdown":
		return "markdown", true
	case "file":
		return "file", true
	case "text":
		return "text", true
	case "content":
		return "content", true
	case "diff":
		return "diff", true
	case "terminal":
		return "terminal", true
	case "image":
		return "image", true
	case "audio":
		return "audio", true
	case "resource":
		return "resource", true
	case "resource_link":
		return "resource_link", true
	case "read":
		return "read", true
	case "edit":
		return "edit", true
	case "delete":
		return "delete", true
	case "move":
		return "move", true
	case "search":
		return "search", true
	case "execute":
		return "execute", true
	case "think":
		return "think", true
	case "fetch":
		return "fetch", true
	case "switch_mode":
		return "switch_mode", true
	case "other":
		return "other", true
	case "plan":
		return "plan", true
	case "plan_update":
		return "plan_update", true
	case "plan_removed":
		return "plan_removed", true
	case "tool_call":
		return "tool_call", true
	case "tool_call_update":
		return "tool_call_update", true
	case "current_mode_update":
		return "current_mode_update", true
	case "session_info_update":
		return "session_info_update", true
	case "agent_message_chunk":
		return "agent_message_chunk", true
	case "user_message_chunk":
		return "user_message_chunk", true
	case "agent_thought_chunk":
		return "agent_thought_chunk", true
	case "available_commands_update":
		return "available_commands_update", true
	case "usage_update":
		return "usage_update", true
	case "config_option_update":
		return "config_option_update", true
	case "initialize":
		return "initialize", true
	case "authenticate":
		return "authenticate", true
	case "session/new":
		return "session/new", true
	case "session/load":
		return "session/load", true
	case "session/prompt":
		return "session/prompt", true
	case "session/update":
		return "session/update", true
	case "session/request_permission":
		return "session/request_permission", true
	case "session/cancel":
		return "session/cancel", true
	case "$/cancel_request":
		return "$/cancel_request", true
	case "selected":
		return "selected", true
	case "allow_once":
		return "allow_once", true
	case "allow_always":
		return "allow_always", true
	case "reject_once":
		return "reject_once", true
	case "reject_always":
		return "reject_always", true
	case "2.0":
		return "2.0", true
	case "c2a":
		return "c2a", true
	case "a2c":
		return "a2c", true
	}
	return "", false
}
